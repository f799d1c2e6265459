/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_place.c - `gpuplace place`: the engine's decision for one job, and why. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "commands.h"
#include "decide.h"

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: gpuplace place (--conf-dir DIR | --json FILE) [--state STATE.json]\n"
	        "                      --job SPEC [--partition NAME] [--exclusive]\n"
	        "                      [--nodelist LIST] [--exclude LIST] [--constraint EXPR]\n"
	        "                      [--time MINUTES] [--segment N] [--policy PARAMS] [--now EPOCH]\n"
	        "                      [--json-out]\n"
	        "\n"
	        "Decide where a job goes and print why: PIN (the nodes), CONSTRAIN (the\n"
	        "topology domains it may start in, or advice to wait for a compact set) or\n"
	        "REJECT (with what to change), then every candidate's predicted step time,\n"
	        "overhead, hops, leaves, racks, power headroom use and score.\n"
	        "\n"
	        "  --job SPEC        gpus=N[,nodes=N][,gpus_per_node=N] and the job's hints,\n"
	        "                    e.g. 'gpus=64,tp=8,pp=2,params=70e9' (see gpuplace(1), model)\n"
	        "  --segment N       sbatch --segment: the job's nodes in whole segments of N\n"
	        "                    nodes, each inside one block of topology/block\n"
	        "  --state FILE      cluster state (gpuplace-json(5)); default: the --json\n"
	        "                    document's state, else everything free\n"
	        "  --policy PARAMS   gpuplace_* keys as in SchedulerParameters, applied after\n"
	        "                    the site's slurm.conf, e.g. gpuplace_policy=pack\n"
	        "  --now EPOCH       decision time (default: the state's time, else now)\n"
	        "  --json-out        print the decision as JSON\n");
}

int gp_cmd_place(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "conf-dir", required_argument, NULL, 'c' },
		{ "json", required_argument, NULL, 'j' },
		{ "state", required_argument, NULL, 's' },
		{ "job", required_argument, NULL, 'J' },
		{ "partition", required_argument, NULL, 'p' },
		{ "exclusive", no_argument, NULL, 'x' },
		{ "nodelist", required_argument, NULL, 'w' },
		{ "exclude", required_argument, NULL, 'e' },
		{ "constraint", required_argument, NULL, 'C' },
		{ "time", required_argument, NULL, 't' },
		{ "segment", required_argument, NULL, 'S' },
		{ "policy", required_argument, NULL, 'P' },
		{ "now", required_argument, NULL, 'n' },
		{ "json-out", no_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *dir = NULL, *json = NULL, *state = NULL, *spec = NULL, *part = NULL;
	const char *nodelist = NULL, *exclude = NULL, *constraint = NULL, *policy = NULL;
	const char *tlimit = NULL, *now_s = NULL, *segment = NULL;
	bool exclusive = false, json_out = false;
	gp_cluster_t *c = NULL;
	gp_state_t *s = NULL;
	gp_engine_t *e = NULL;
	gp_rack_view_t *racks = NULL;
	gp_power_view_t pv = { NULL, NULL };
	gp_job_profile_t job;
	gp_request_t r;
	gp_policy_t p;
	gp_decision_t d;
	gp_error_t err = { "" };
	int opt, rc, status = 1;
	long l;
	int64_t now;

	memset(&d, 0, sizeof(d));
	gp__request_init(&r);
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'c': dir = optarg; break;
		case 'j': json = optarg; break;
		case 's': state = optarg; break;
		case 'J': spec = optarg; break;
		case 'p': part = optarg; break;
		case 'x': exclusive = true; break;
		case 'w': nodelist = optarg; break;
		case 'e': exclude = optarg; break;
		case 'C': constraint = optarg; break;
		case 't': tlimit = optarg; break;
		case 'S': segment = optarg; break;
		case 'P': policy = optarg; break;
		case 'n': now_s = optarg; break;
		case 'o': json_out = true; break;
		case 'h': usage(stdout); return 0;
		default:
			fprintf(stderr, "gpuplace place: unknown or incomplete option '%s'\n", argv[optind - 1]);
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc || !dir == !json || !spec) {
		fprintf(stderr, "gpuplace place: give --job and exactly one of --conf-dir or --json\n");
		usage(stderr);
		return 2;
	}
	if ((rc = gp__job_profile_parse(spec, &job, &err))) {
		fprintf(stderr, "gpuplace place: --job: %s\n", err.text);
		return 2;
	}
	if (job.gpus < 1) {
		fprintf(stderr, "gpuplace place: --job: gpus=N is required\n");
		return 2;
	}
	rc = gp__model_load(dir, json, state, &c, &s, &err);
	if (rc == GP_OK)
		rc = dir ? gp__policy_load(dir, c, &p, &err) : (gp__policy_default(c, &p), GP_OK);
	if (rc == GP_OK && policy)
		rc = gp__policy_parse(policy, "--policy", &p, &err);
	if (rc != GP_OK) {
		fprintf(stderr, "gpuplace place: %s\n", err.text);
		goto out;
	}
	/* the request sbatch would make */
	r.gpus = job.gpus;
	r.min_nodes = r.max_nodes = job.nodes;
	r.gpus_per_node = job.gpus_per_node;
	r.exclusive = exclusive;
	if (tlimit) {
		if (gp__parse_long(tlimit, 1, 366L * 24 * 60, &l)) {
			fprintf(stderr, "gpuplace place: --time: '%s' is not a number of minutes\n", tlimit);
			status = 2;
			goto out;
		}
		r.time_limit_min = (uint32_t)l;
	}
	if (segment) {
		/* sbatch takes a uint16_t */
		if (gp__parse_long(segment, 1, 65535, &l)) {
			fprintf(stderr, "gpuplace place: --segment: '%s' is not a number of nodes "
			        "(1-65535)\n", segment);
			status = 2;
			goto out;
		}
		r.segment_nodes = (int32_t)l;
	}
	if ((part && (rc = gp__request_set_partition(&r, c, part, &err))) ||
	    (nodelist && (rc = gp__request_set_required(&r, c, nodelist, &err))) ||
	    (exclude && (rc = gp__request_set_excluded(&r, c, exclude, &err))) ||
	    (constraint && (rc = gp__request_set_constraint(&r, constraint, &err)))) {
		fprintf(stderr, "gpuplace place: %s\n", err.text);
		status = 2;
		goto out;
	}
	now = s ? s->time : (int64_t)time(NULL);
	if (now_s) {
		if (gp__parse_long(now_s, 0, 1L << 40, &l)) {
			fprintf(stderr, "gpuplace place: --now: '%s' is not a Unix time\n", now_s);
			status = 2;
			goto out;
		}
		now = l;
	}
	if (c->nracks > 0) {
		if (!(racks = calloc((size_t)c->nracks, sizeof(*racks)))) {
			fprintf(stderr, "gpuplace place: out of memory\n");
			goto out;
		}
		gp__power_view_fill(c, s, NULL, &p, (double)now, racks);
		pv.racks = racks;
		pv.cap_speed = gp__power_view_cap_speed;
	}
	if ((rc = gp__engine_create(c, &e, &err)) ||
	    (rc = gp__decide(e, s, &r, &job, &p, &pv, now, NULL, 0, &d, &err))) {
		fprintf(stderr, "gpuplace place: %s\n", err.text);
		status = rc == GP_EINVAL ? 2 : 1;
		goto out;
	}
	rc = json_out ? gp__decision_print_json(c, &d, stdout) : gp__decision_print_text(c, &d, stdout);
	status = rc == GP_OK && fflush(stdout) == 0 ? 0 : 1;
out:
	gp__decision_clear(&d);
	gp__engine_destroy(e);
	gp__request_clear(&r);
	free(racks);
	gp_state_destroy(s);
	gp_cluster_destroy(c);
	return status;
}
