/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_place.c - `gpuplace place`: the engine's decision for one job, and why. */
#include "config.h"

#include <errno.h>
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
	        "                      [--json-out FILE|-]\n"
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
	        "  --json-out FILE   write the decision as JSON to FILE (- for standard output)\n");
}

/* What the command line asks for. */
struct args {
	const char *dir, *json, *state, *part, *nodelist, *exclude, *constraint, *policy;
	const char *tlimit, *now_s, *segment; /* checked once the model is loaded */
	bool exclusive;
	const char *json_out;     /* --json-out FILE, "-" = standard output */
	gp_job_profile_t job;                 /* --job */
};

/* Options into *a: GP_CLI_RUN, or the exit status (0 --help, 2 usage). */
static int parse_args(int argc, char **argv, struct args *a)
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
		{ "json-out", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *spec = NULL;
	gp_error_t err = { "" };
	int opt;

	memset(a, 0, sizeof(*a));
	optind = 1;
	opterr = 0;
	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 'c': a->dir = optarg; break;
		case 'j': a->json = optarg; break;
		case 's': a->state = optarg; break;
		case 'J': spec = optarg; break;
		case 'p': a->part = optarg; break;
		case 'x': a->exclusive = true; break;
		case 'w': a->nodelist = optarg; break;
		case 'e': a->exclude = optarg; break;
		case 'C': a->constraint = optarg; break;
		case 't': a->tlimit = optarg; break;
		case 'S': a->segment = optarg; break;
		case 'P': a->policy = optarg; break;
		case 'n': a->now_s = optarg; break;
		case 'o': a->json_out = optarg; break;
		case 'h': usage(stdout); return 0;
		default:
			fprintf(stderr, "gpuplace place: unknown or incomplete option '%s'\n", argv[optind - 1]);
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc || !a->dir == !a->json || !spec) {
		fprintf(stderr, "gpuplace place: give --job and exactly one of --conf-dir or --json\n");
		usage(stderr);
		return 2;
	}
	if (gp__job_profile_parse(spec, &a->job, &err)) {
		fprintf(stderr, "gpuplace place: --job: %s\n", err.text);
		return 2;
	}
	if (a->job.gpus < 1) {
		fprintf(stderr, "gpuplace place: --job: gpus=N is required\n");
		return 2;
	}
	return GP_CLI_RUN;
}

/* The model, its state and the site's policy with --policy applied; 0, or
 * 1 with the message printed.  *c and *s are the caller's. */
static int load(const struct args *a, gp_cluster_t **c, gp_state_t **s, gp_policy_t *p)
{
	gp_error_t err = { "" };
	int rc;

	rc = gp__model_load(a->dir, a->json, a->state, c, s, &err);
	if (rc == GP_OK)
		rc = gp__policy_site(*c, p, &err); /* as the model was loaded */
	if (rc == GP_OK && a->policy)
		rc = gp__policy_parse(a->policy, "--policy", p, &err);
	if (rc != GP_OK) {
		fprintf(stderr, "gpuplace place: %s\n", err.text);
		return 1;
	}
	return 0;
}

/* The request sbatch would make into *r (gp__request_init()ed), and the
 * decision time: --now, else the state's, else now.  0, or 2 with the
 * message printed. */
static int build_request(const struct args *a, const gp_cluster_t *c, const gp_state_t *s,
                         gp_request_t *r, int64_t *now)
{
	gp_error_t err = { "" };
	long l;

	r->gpus = a->job.gpus;
	r->min_nodes = r->max_nodes = a->job.nodes;
	r->gpus_per_node = a->job.gpus_per_node;
	r->exclusive = a->exclusive;
	if (a->tlimit) {
		if (gp__parse_long(a->tlimit, 1, 366L * 24 * 60, &l)) {
			fprintf(stderr, "gpuplace place: --time: '%s' is not a number of minutes\n",
			        a->tlimit);
			return 2;
		}
		r->time_limit_min = (uint32_t)l;
	}
	if (a->segment) {
		/* sbatch takes a uint16_t */
		if (gp__parse_long(a->segment, 1, 65535, &l)) {
			fprintf(stderr, "gpuplace place: --segment: '%s' is not a number of nodes "
			        "(1-65535)\n", a->segment);
			return 2;
		}
		r->segment_nodes = (int32_t)l;
	}
	if ((a->part && gp__request_set_partition(r, c, a->part, &err)) ||
	    (a->nodelist && gp__request_set_required(r, c, a->nodelist, &err)) ||
	    (a->exclude && gp__request_set_excluded(r, c, a->exclude, &err)) ||
	    (a->constraint && gp__request_set_constraint(r, a->constraint, &err))) {
		fprintf(stderr, "gpuplace place: %s\n", err.text);
		return 2;
	}
	*now = s ? s->time : (int64_t)time(NULL);
	if (a->now_s) {
		if (gp__parse_long(a->now_s, 0, 1L << 40, &l)) {
			fprintf(stderr, "gpuplace place: --now: '%s' is not a Unix time\n", a->now_s);
			return 2;
		}
		*now = l;
	}
	return 0;
}

/* The engine's decision for r, printed; the exit status. */
/* The decision as text on standard output, and as JSON to json_out when
 * given ("-": JSON only, on standard output); 0 or 1 (message printed). */
static int print_decision(const char *json_out, const gp_cluster_t *c, const gp_decision_t *d)
{
	FILE *f;
	int rc;

	if (json_out && !strcmp(json_out, "-"))
		return gp__decision_print_json(c, d, stdout) == GP_OK && fflush(stdout) == 0 ? 0 : 1;
	if (gp__decision_print_text(c, d, stdout) != GP_OK || fflush(stdout))
		return 1;
	if (!json_out)
		return 0;
	if (!(f = fopen(json_out, "w"))) {
		fprintf(stderr, "gpuplace place: cannot write %s: %s\n", json_out, strerror(errno));
		return 1;
	}
	rc = gp__decision_print_json(c, d, f);
	if (fclose(f) || rc != GP_OK) {
		fprintf(stderr, "gpuplace place: cannot write %s\n", json_out);
		return 1;
	}
	return 0;
}

static int decide(const struct args *a, const gp_cluster_t *c, const gp_state_t *s,
                  const gp_request_t *r, const gp_policy_t *p, int64_t now)
{
	gp_engine_t *e = NULL;
	gp_rack_view_t *racks = NULL;
	/* as the plugin: the racks' limits bind at any use where Slurm holds
	 * every GPU job to them (PowerLicenses, PowerHres) */
	gp_power_view_t pv = { NULL, NULL, gp__site_racks_held(c) };
	gp_decision_t d;
	gp_error_t err = { "" };
	int rc, status = 1;

	memset(&d, 0, sizeof(d));
	if (c->nracks > 0) {
		if (!(racks = calloc((size_t)c->nracks, sizeof(*racks)))) {
			fprintf(stderr, "gpuplace place: out of memory\n");
			return 1;
		}
		gp__power_view_fill(c, s, NULL, p, (double)now, racks);
		pv.racks = racks;
		pv.cap_speed = gp__power_view_cap_speed;
	}
	if ((rc = gp__engine_create(c, &e, &err)) ||
	    (rc = gp__decide(e, s, r, &a->job, p, &pv, now, NULL, 0, &d, &err))) {
		fprintf(stderr, "gpuplace place: %s\n", err.text);
		status = rc == GP_EINVAL ? 2 : 1;
	} else {
		status = print_decision(a->json_out, c, &d);
	}
	gp__decision_clear(&d);
	gp__engine_destroy(e);
	free(racks);
	return status;
}

int gp_cmd_place(int argc, char **argv)
{
	struct args a;
	gp_cluster_t *c = NULL;
	gp_state_t *s = NULL;
	gp_request_t r;
	gp_policy_t p;
	int64_t now = 0;
	int status;

	if ((status = parse_args(argc, argv, &a)) != GP_CLI_RUN)
		return status;
	gp__request_init(&r);
	if (!(status = load(&a, &c, &s, &p)) && !(status = build_request(&a, c, s, &r, &now)))
		status = decide(&a, c, s, &r, &p, now);
	gp__request_clear(&r);
	gp_state_destroy(s);
	gp_cluster_destroy(c);
	return status;
}
