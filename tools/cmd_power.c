/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cmd_power.c - `gpuplace power show|curve`: rack power and cooling headroom
 * from the configured telemetry, and the power-cap speed curve. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "commands.h"
#include "power.h"

#define ME "gpuplace power"

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: gpuplace power show  (--conf-dir DIR | --json FILE) [--state FILE.json]\n"
	        "                            [--no-telemetry] [--json-out FILE|-]\n"
	        "       gpuplace power curve (--conf-dir DIR | --json FILE) [--cap-curve SPEC]\n"
	        "\n"
	        "  show     poll every Telemetry= source once, then print per rack: power cap,\n"
	        "           cooling, measured and estimated draw, headroom, the binding limit,\n"
	        "           the source, the sample age and how many of its free GPUs the\n"
	        "           headroom powers at TDP; then the share of all GPUs the racks\n"
	        "           power at TDP with every rack idle\n"
	        "  curve    print the relative speed of each GPU profile at power caps from\n"
	        "           its lowest cap to its TDP\n"
	        "\n"
	        "  --conf-dir DIR     Slurm configuration directory with gpuplace.conf\n"
	        "  --json FILE        a model written by `gpuplace cluster export`\n"
	        "  --state FILE.json  allocations (and recorded rack power) from the \"state\"\n"
	        "                     section of a JSON document (gpuplace-json(5)); its node\n"
	        "                     and rack names must be this cluster's.  Default: the state\n"
	        "                     in the --json FILE, else everything idle\n"
	        "  --no-telemetry     do not poll; use recorded samples or the estimate\n"
	        "  --json-out FILE    show: the racks as JSON to FILE (- for standard output)\n"
	        "  --cap-curve SPEC   FRACTION:SPEED,... of TDP (default: built-in curve)\n");
}

static void log_stderr(void *arg, int level, const char *msg)
{
	(void)arg;
	fprintf(stderr, "gpuplace power: %s%s\n", level == GP_LOG_ERROR ? "error: " :
	        level == GP_LOG_WARNING ? "warning: " : "", msg);
}

static void kw(char *buf, size_t size, double w)
{
	if (w < 0)
		snprintf(buf, size, "-");
	else
		snprintf(buf, size, "%.2f", w / 1000.0);
}

static int show(const gp_cluster_t *c, const gp_state_t *s, bool poll, const char *json_out)
{
	int64_t tot_free = 0, tot_now = 0, tot_all = 0, tot_idle = 0;
	const gp_power_snapshot_t *snap = NULL;
	gp_poller_t *p = NULL;
	gp_error_t err = { "" };
	double now = gp__power_clock_real(NULL);
	int32_t r, i;
	int rc, w = 16;
	json_object *jr = NULL;
	FILE *out = stdout;

	if (poll && c->ntelemetry > 0) {
		gp_poller_opts_t o = { .log = log_stderr };

		if ((rc = gp__poller_create(c, &o, &p, &err)) < 0) {
			fprintf(stderr, "gpuplace power: %s\n", err.text);
			return 1;
		}
		if (gp__poller_poll_once(p) < 0) {
			fprintf(stderr, "gpuplace power: out of memory\n");
			gp__poller_destroy(p);
			return 1;
		}
		snap = gp__poller_snapshot_get(p);
		now = gp__power_clock_real(NULL);
	}
	/* the rack column as wide as the longest rack name */
	for (r = 0; r < c->nracks; r++)
		if ((int)strlen(c->racks[r].name) > w)
			w = (int)strlen(c->racks[r].name);
	if (json_out) {
		if (!(jr = json_object_new_array())) {
			fprintf(stderr, "gpuplace power: out of memory\n");
			rc = 1;
			goto done;
		}
		/* the table goes to stderr when the JSON takes standard output */
		out = strcmp(json_out, "-") ? stdout : stderr;
	}
	fprintf(out, "%-*s %8s %8s %11s %12s %11s %-8s %-16s %-8s %s\n", w, "RACK", "CAP_KW",
	        "COOL_KW", "MEASURED_KW", "ESTIMATED_KW", "HEADROOM_KW", "BINDS", "SOURCE", "AGE",
	        "GPUS_AT_TDP");
	for (r = 0; r < c->nracks; r++) {
		gp_power_headroom_t h;
		char m[32], e[32], hr[32], age[48], gpus[48];
		int64_t all, fr, now_n, idle_n;

		if ((rc = gp__power_headroom(c, s, snap, r, 0, now, &h)) < 0 ||
		    /* every rack idle, by the estimate: what it can power at all */
		    (rc = gp__power_rack_idle_tdp_gpus(c, r, &idle_n, NULL)) < 0) {
			fprintf(stderr, "gpuplace power: rack %s: %s\n", c->racks[r].name,
			        gp_strerror(rc));
			continue;
		}
		now_n = gp__power_rack_tdp_gpus(c, s, r, h.headroom_w, &all, &fr);
		tot_free += fr;
		tot_now += now_n;
		tot_all += all;
		tot_idle += idle_n;
		snprintf(gpus, sizeof(gpus), "%lld/%lld", (long long)now_n, (long long)fr);
		kw(m, sizeof(m), h.measured_w);
		kw(e, sizeof(e), h.estimated_w);
		snprintf(hr, sizeof(hr), "%.2f", h.headroom_w / 1000.0);
		if (h.age_s < 0)
			snprintf(age, sizeof(age), "-");
		else
			snprintf(age, sizeof(age), "%.0fs%s", h.age_s,
			         h.stale ? " (stale: estimate used)" : "");
		if (jr) {
			json_object *o = json_object_new_object();

			json_object_object_add(o, "rack", json_object_new_string(c->racks[r].name));
			json_object_object_add(o, "cap_kw", json_object_new_double(h.cap_w / 1000.0));
			json_object_object_add(o, "cooling_kw", json_object_new_double(h.cooling_w / 1000.0));
			json_object_object_add(o, "measured_kw", h.measured_w >= 0 ?
			                       json_object_new_double(h.measured_w / 1000.0) : NULL);
			json_object_object_add(o, "estimated_kw", json_object_new_double(h.estimated_w / 1000.0));
			json_object_object_add(o, "headroom_kw", json_object_new_double(h.headroom_w / 1000.0));
			json_object_object_add(o, "binds", json_object_new_string(
			                       h.binding == GP_LIMIT_COOLING ? "cooling" : "power"));
			json_object_object_add(o, "source", json_object_new_string(h.source));
			json_object_object_add(o, "age_s", h.age_s >= 0 ? json_object_new_double(h.age_s) : NULL);
			json_object_object_add(o, "stale", json_object_new_boolean(h.stale));
			json_object_object_add(o, "gpus_free", json_object_new_int64(fr));
			json_object_object_add(o, "gpus_at_tdp", json_object_new_int64(now_n));
			json_object_object_add(o, "gpus", json_object_new_int64(all));
			json_object_object_add(o, "gpus_at_tdp_idle", json_object_new_int64(idle_n));
			json_object_array_add(jr, o);
		}
		fprintf(out, "%-*s %8.2f %8.2f %11s %12s %11s %-8s %-16s %-8s %s\n", w,
		        c->racks[r].name, h.cap_w / 1000.0, h.cooling_w / 1000.0, m, e, hr,
		        h.binding == GP_LIMIT_COOLING ? "cooling" : "power", h.source, age, gpus);
	}
	fprintf(out, "headroom = min(cap, cooling) x (1 - PowerMargin %.3g) - draw; draw is the fresh "
	       "measurement, else max(estimate, last measurement)\n", c->site.power_margin);
	/* GPUS_AT_TDP: how many of the rack's free GPUs its headroom powers,
	 * each at its profile's TDP over idle (what the engine and PowerLicenses
	 * count for a GPU job, power.h) */
	if (c->nracks > 0 && tot_all > 0)
		fprintf(out, "GPUS_AT_TDP = of the rack's free GPUs, how many its headroom powers at "
		        "TDP: %lld of %lld free (%.1f %%); with every rack idle the racks power %lld "
		        "of their %lld GPUs at TDP (%.1f %%)\n", (long long)tot_now,
		        (long long)tot_free, tot_free ? 100.0 * (double)tot_now / (double)tot_free : 0.0,
		        (long long)tot_idle, (long long)tot_all,
		        100.0 * (double)tot_idle / (double)tot_all);
	for (i = 0; snap && i < snap->nsources; i++) {
		const gp_source_status_t *st = &snap->sources[i];

		if (st->state != GP_SOURCE_OK)
			fprintf(out, "telemetry %s: %s%s%s\n", st->name,
			       st->state == GP_SOURCE_FAILED ? "failed" :
			       st->state == GP_SOURCE_PARTIAL ? "partial" : "not polled",
			       st->message[0] ? ": " : "", st->message);
	}
	rc = 0;
	if (jr) {
		FILE *f = strcmp(json_out, "-") ? fopen(json_out, "w") : stdout;

		if (!f || fprintf(f, "%s\n", json_object_to_json_string_ext(jr,
		           JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE)) < 0 ||
		    (f == stdout ? fflush(f) : fclose(f))) {
			fprintf(stderr, "gpuplace power: cannot write %s\n", json_out);
			rc = 1;
		}
	}
done:
	json_object_put(jr);
	gp__power_snapshot_put(snap);
	gp__poller_destroy(p);
	return rc;
}

static int curve(const gp_cluster_t *c, const gp_cap_curve_t *cv)
{
	static const double fracs[] = { 0.5, 0.6, 0.7, 0.8, 0.857, 0.9, 1.0 };
	int32_t i;
	size_t k;

	printf("%-16s %8s %8s %8s\n", "PROFILE", "CAP_W", "OF_TDP", "SPEED");
	for (i = 0; i < c->nprofiles; i++) {
		const gp_gpu_profile_t *p = &c->profiles[i];
		double lo = p->min_cap_w > 0 ? p->min_cap_w : p->tdp_w / 2;

		for (k = 0; k < sizeof(fracs) / sizeof(fracs[0]); k++) {
			double cap = fracs[k] * p->tdp_w;

			if (cap < lo)
				continue;
			printf("%-16s %8.0f %8.3f %8.3f\n", p->name, cap, fracs[k],
			       gp__power_cap_speed_curve(cv, p, cap));
		}
	}
	return 0;
}

/* What the command line asks for. */
struct args {
	const char *action, *conf_dir, *json, *state, *json_out;
	bool poll;
	bool has_curve;
	gp_cap_curve_t curve;
};

/* The action and its options into *a: GP_CLI_RUN, or the exit status. */
static int parse_args(int argc, char **argv, struct args *a)
{
	static const char *const actions[] = { "show", "curve", NULL };
	static const struct option opts[] = {
		{ "conf-dir", required_argument, NULL, 'c' },
		{ "json", required_argument, NULL, 'j' },
		{ "state", required_argument, NULL, 's' },
		{ "no-telemetry", no_argument, NULL, 'n' },
		{ "cap-curve", required_argument, NULL, 'k' },
		{ "json-out", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	gp_error_t err = { "" };
	int opt, rc;

	memset(a, 0, sizeof(*a));
	a->poll = true;
	if ((rc = gp__cli_action(ME, argc, argv, actions, usage, &a->action)) != GP_CLI_RUN)
		return rc;
	optind = 1;
	opterr = 0;
	/* options follow the action: parse argv[1..] with the action as argv[0] */
	while ((opt = getopt_long(argc - 1, argv + 1, ":h", opts, NULL)) != -1) {
		switch (opt) {
		case 'c': a->conf_dir = optarg; break;
		case 'j': a->json = optarg; break;
		case 's': a->state = optarg; break;
		case 'n': a->poll = false; break;
		case 'o': a->json_out = optarg; break;
		case 'k':
			if (gp__cap_curve_parse(optarg, &a->curve, &err) < 0) {
				fprintf(stderr, ME ": --cap-curve: %s\n", err.text);
				return 2;
			}
			a->has_curve = true;
			break;
		case 'h': usage(stdout); return 0;
		default: return gp__cli_option_error(ME, opt, argv[optind], usage);
		}
	}
	if (optind < argc - 1 || !a->conf_dir == !a->json) {
		fprintf(stderr, ME ": give exactly one of --conf-dir or --json\n");
		usage(stderr);
		return 2;
	}
	return GP_CLI_RUN;
}

int gp_cmd_power(int argc, char **argv)
{
	struct args a;
	gp_cluster_t *c = NULL;
	gp_state_t *s = NULL;
	gp_error_t err = { "" };
	int rc, status = 1;

	if ((rc = parse_args(argc, argv, &a)) != GP_CLI_RUN)
		return rc;
	if ((rc = gp__model_load(a.conf_dir, a.json, a.state, &c, &s, &err)) < 0) {
		fprintf(stderr, ME ": %s\n", err.text);
		goto out;
	}
	if (!s && (rc = gp_state_create(c, &s)) < 0) {
		fprintf(stderr, ME ": %s\n", gp_strerror(rc));
		goto out;
	}
	status = !strcmp(a.action, "show") ? show(c, s, a.poll, a.json_out)
	                                   : curve(c, a.has_curve ? &a.curve : NULL);
out:
	gp_state_destroy(s);
	gp_cluster_destroy(c);
	return status;
}
