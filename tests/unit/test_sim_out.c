/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_sim_out.c - the simulator's outputs on results built by hand: the
 * comparison table, the CSV and JSON files read back, the gnuplot plots
 * (skipped without gnuplot), and the failures: an unwritable directory, no
 * gnuplot, a gnuplot that fails.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "test_slurp.h"

#include <json-c/json.h>

#include "sim.h"

#define NRACKS 2
#define NSAMPLES 4

/* One hand-made result with its arrays. */
struct fixture {
	gp_sim_result_t r;
	gp_sim_job_t jobs[3];
	double t[NSAMPLES], util[NSAMPLES];
	int32_t queued[NSAMPLES];
	double rack_w[NSAMPLES * NRACKS], limit[NRACKS];
};

static const char *const metric_names[] = {
	"jobs", "completed", "rejected", "backfilled", "span_s", "jct_mean_s", "jct_p50_s",
	"jct_p95_s", "wait_mean_s", "wait_p50_s", "wait_p95_s", "slowdown_mean", "gpu_util",
	"overhead_gpuh", "multi_node", "spread", "violations", "violation_gpuh", "frag_mean",
	"peak_rack_frac", "lost_place_gpuh", "lost_wait_gpuh", "wait_gpuh_mean_s",
	"wait_mean_s_1gpu", "wait_mean_s_2_8gpu", "wait_mean_s_9_32gpu", "wait_mean_s_33_128gpu",
	"wait_mean_s_gt128gpu", "jobs_1gpu", "jobs_2_8gpu", "jobs_9_32gpu", "jobs_33_128gpu",
	"jobs_gt128gpu", "killed", "limits_drawn", "throughput", "decisions", "events",
	"passes", "steered", "steer_evals",
};
#define NMETRICS (sizeof(metric_names) / sizeof(metric_names[0]))

/*
 * kind 0: three jobs (one rejected), racks with a limit on the first only;
 * kind 1: two jobs, both racks limited;
 * kind 2: no completed job (NaN means), no rack limit at all.
 */
static void fixture_init(struct fixture *x, const char *policy, int kind)
{
	gp_sim_result_t *r = &x->r;
	gp_sim_metrics_t *m = &r->m;
	int s, k;

	memset(x, 0, sizeof(*x));
	snprintf(r->policy, sizeof(r->policy), "%s", policy);
	r->jobs = x->jobs;
	r->njobs = kind == 1 ? 2 : 3;
	for (k = 0; k < r->njobs; k++) {
		gp_sim_job_t *b = &x->jobs[k];

		b->id = (uint32_t)(k + 1);
		b->gpus = 8 << k;
		b->nnodes = 1 << k;
		b->nleaves = k ? 2 : 1;
		b->nracks = 1;
		b->submit_s = 100.0 * k + kind;
		b->start_s = b->submit_s + 60.5 * k;
		b->duration_s = 3600.0 / 7 * (k + 1);      /* not a short decimal */
		b->slowdown = 1.0 + 0.1 / 3 * k;
		b->end_s = b->start_s + b->duration_s * b->slowdown;
		b->overhead = 0.0123 * k;
		b->backfilled = k == 1;
		b->violation = kind == 1 && k == 0;
		if ((kind == 0 && k == 2) || kind == 2) {
			b->rejected = true;
			b->start_s = -1;
			b->end_s = -1;
			b->nnodes = b->nleaves = b->nracks = 0;
		}
	}
	r->nsamples = NSAMPLES;
	r->t = x->t;
	r->util = x->util;
	r->queued = x->queued;
	r->nracks = NRACKS;
	r->rack_w = x->rack_w;
	r->rack_limit_w = x->limit;
	x->limit[0] = kind == 2 ? INFINITY : 20000;
	x->limit[1] = kind == 1 ? 30000 : INFINITY;
	for (s = 0; s < NSAMPLES; s++) {
		x->t[s] = 43200.0 * s;
		x->util[s] = kind == 2 ? 0 : 0.25 * s + 0.01 * kind;
		x->queued[s] = s + kind;
		for (k = 0; k < NRACKS; k++)
			x->rack_w[s * NRACKS + k] = 5000.0 * (s + 1) + 1000.0 * k + 333.3 * kind;
	}

	m->jobs = r->njobs;
	m->completed = kind == 2 ? 0 : 2;
	m->rejected = r->njobs - m->completed;
	m->backfilled = 1;
	m->span_s = 86400.0 * 1.5;
	m->jct_mean_s = kind == 2 ? NAN : 7200.0 + 1800 * kind;
	m->lost_place_gpuh = 12.5 + kind / 3.0;
	m->lost_wait_gpuh = 1234.0 + kind;
	m->throughput = kind == 2 ? NAN : 100.0 / 7 + kind;
	m->jct_p50_s = kind == 2 ? NAN : 5400.25;
	m->jct_p95_s = kind == 2 ? NAN : 36000.0 / 7;
	m->wait_mean_s = kind == 2 ? NAN : 900.0 * (kind + 1);
	m->wait_p50_s = kind == 2 ? NAN : 30.0;
	m->wait_p95_s = kind == 2 ? NAN : 3600.0 * 4.5;
	m->slowdown_mean = kind == 2 ? NAN : 1.0 + 1.0 / 30;
	m->gpu_util = kind == 2 ? 0 : 0.6543 + 0.1 * kind;
	m->overhead_gpuh = 0.0421 * kind;
	m->multi_node = kind == 2 ? 0 : 2;
	m->spread = kind == 2 ? 0 : 1;
	m->violations = kind == 1 ? 3 : 0;
	m->violation_gpuh = kind == 1 ? 12.75 : 0;
	m->frag_mean = 0.125;
	m->peak_rack_frac = kind == 2 ? NAN : 0.9 + 0.25 * kind;
	m->decisions = 1234567890123LL + kind;
	m->events = 6;
	m->passes = 5;
	m->steered = kind;
	m->steer_evals = 7 + kind;
}

static struct fixture fx[3];
static const gp_sim_result_t *res[3];
static gp_cluster_t cluster;
static gp_rack_t racks[NRACKS];
static gp_trace_t trace;
static const char *const policies[3] = { "first-fit", "power-save", "o'dd,name" };

static int setup(void **state)
{
	int i;

	for (i = 0; i < 3; i++) {
		fixture_init(&fx[i], policies[i], i);
		res[i] = &fx[i].r;
	}
	memset(&cluster, 0, sizeof(cluster));
	snprintf(cluster.name, sizeof(cluster.name), "testcluster");
	memset(racks, 0, sizeof(racks));
	snprintf(racks[0].name, sizeof(racks[0].name), "rackA");
	snprintf(racks[1].name, sizeof(racks[1].name), "rackB");
	cluster.racks = racks;
	cluster.nracks = NRACKS;
	memset(&trace, 0, sizeof(trace));
	snprintf(trace.name, sizeof(trace.name), "philly-sample.csv");
	trace.njobs = 3;
	return 0;
}

/* ---- helpers ------------------------------------------------------------ */

static char *make_tmpdir(void)
{
	char tmpl[] = "/tmp/test_sim_out.XXXXXX";
	char *d = mkdtemp(tmpl);

	assert_non_null(d);
	d = strdup(d);
	assert_non_null(d);
	return d;
}

static void rm_rf(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char p[2048];

	if (!d)
		return;
	while ((e = readdir(d))) {
		struct stat st;

		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		if (!lstat(p, &st) && S_ISDIR(st.st_mode))
			rm_rf(p);
		else
			unlink(p);
	}
	closedir(d);
	rmdir(dir);
}

static char *slurp(const char *dir, const char *name, size_t *len)
{
	char p[2048];
	int n = snprintf(p, sizeof(p), "%s/%s", dir, name);

	if (n < 0 || (size_t)n >= sizeof(p))
		return NULL; /* a path this long is not one the test made */
	return gp_test_slurp(p, len);
}

/* Lines of text, each '\0'-terminated in place; returns the count. */
static int split_lines(char *text, char **lines, int max)
{
	int n = 0;
	char *p = text, *nl;

	while (*p) {
		nl = strchr(p, '\n');
		assert_non_null(nl);    /* every line ends with a newline */
		*nl = '\0';
		if (n < max)
			lines[n] = p;
		n++;
		p = nl + 1;
	}
	return n;
}

/* Split a CSV line without quotes at commas, in place. */
static int split_fields(char *line, char **f, int max)
{
	int n = 0;
	char *p = line;

	for (;;) {
		if (n < max)
			f[n] = p;
		n++;
		p = strchr(p, ',');
		if (!p)
			break;
		*p++ = '\0';
	}
	return n;
}

static double num(const char *s)
{
	double v;

	if (gp__parse_double(s, -INFINITY, INFINITY, &v))
		fail_msg("not a number: '%s'", s);
	return v;
}

static long inum(const char *s)
{
	long v;

	if (gp__parse_long(s, -9223372036854775807L, 9223372036854775807L, &v))
		fail_msg("not an integer: '%s'", s);
	return v;
}

static double metric_value(const gp_sim_metrics_t *m, const char *name, bool *is_int)
{
	static const struct { const char *n; size_t off; int t; } map[] = {
#define M(f, t) { #f, offsetof(gp_sim_metrics_t, f), t }
		M(jobs, 0), M(completed, 0), M(rejected, 0), M(backfilled, 0), M(span_s, 2),
		M(jct_mean_s, 2), M(jct_p50_s, 2), M(jct_p95_s, 2), M(wait_mean_s, 2),
		M(wait_p50_s, 2), M(wait_p95_s, 2), M(slowdown_mean, 2), M(gpu_util, 2),
		M(overhead_gpuh, 2), M(multi_node, 0), M(spread, 0), M(violations, 0),
		M(violation_gpuh, 2), M(frag_mean, 2), M(peak_rack_frac, 2), M(lost_place_gpuh, 2),
		M(lost_wait_gpuh, 2), M(wait_gpuh_mean_s, 2),
		{ "wait_mean_s_1gpu", offsetof(gp_sim_metrics_t, wait_size_mean_s), 2 },
		{ "wait_mean_s_2_8gpu", offsetof(gp_sim_metrics_t, wait_size_mean_s) + 8, 2 },
		{ "wait_mean_s_9_32gpu", offsetof(gp_sim_metrics_t, wait_size_mean_s) + 16, 2 },
		{ "wait_mean_s_33_128gpu", offsetof(gp_sim_metrics_t, wait_size_mean_s) + 24, 2 },
		{ "wait_mean_s_gt128gpu", offsetof(gp_sim_metrics_t, wait_size_mean_s) + 32, 2 },
		{ "jobs_1gpu", offsetof(gp_sim_metrics_t, size_jobs), 0 },
		{ "jobs_2_8gpu", offsetof(gp_sim_metrics_t, size_jobs) + 4, 0 },
		{ "jobs_9_32gpu", offsetof(gp_sim_metrics_t, size_jobs) + 8, 0 },
		{ "jobs_33_128gpu", offsetof(gp_sim_metrics_t, size_jobs) + 12, 0 },
		{ "jobs_gt128gpu", offsetof(gp_sim_metrics_t, size_jobs) + 16, 0 },
		M(killed, 0), M(limits_drawn, 0), M(throughput, 2), M(decisions, 1),
		M(events, 1), M(passes, 1), M(steered, 0), M(steer_evals, 1),
#undef M
	};
	size_t i;

	for (i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
		const char *p = (const char *)m + map[i].off;

		if (strcmp(map[i].n, name))
			continue;
		*is_int = map[i].t != 2;
		if (map[i].t == 0)
			return *(const int32_t *)(const void *)p;
		if (map[i].t == 1)
			return (double)*(const int64_t *)(const void *)p;
		return *(const double *)(const void *)p;
	}
	fail_msg("unknown metric %s", name);
	return 0;
}

static bool gnuplot_in_path(void)
{
	const char *path = getenv("PATH");
	char *copy, *dir, *save = NULL;
	char p[2048];
	bool found = false;

	if (!path)
		return false;
	copy = strdup(path);
	assert_non_null(copy);
	for (dir = strtok_r(copy, ":", &save); dir && !found; dir = strtok_r(NULL, ":", &save)) {
		snprintf(p, sizeof(p), "%s/gnuplot", *dir ? dir : ".");
		found = access(p, X_OK) == 0;
	}
	free(copy);
	return found;
}

static bool no_tmp_files(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	bool ok = true;

	assert_non_null(d);
	while ((e = readdir(d)))
		if (strstr(e->d_name, ".tmp."))
			ok = false;
	closedir(d);
	return ok;
}

/* ---- table -------------------------------------------------------------- */

static void test_table(void **state)
{
	/* six policies, as `gpuplace simulate` compares them */
	static const char *const six[6] = { "first-fit", "tree", "balanced", "pack",
	                                    "performance", "power-save" };
	struct fixture more[6];
	const gp_sim_result_t *r6[6];
	char *buf = NULL, *lines[24], want[64];
	size_t len = 0;
	FILE *f;
	int i, n;

	for (i = 0; i < 6; i++) {
		fixture_init(&more[i], six[i], i % 3);
		r6[i] = &more[i].r;
	}
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(gp__sim_print_table(r6, 6, f), 0);
	fclose(f);
	n = split_lines(buf, lines, 24);
	/* header, rows, legend; a blank line, the waits' header, rows, legend */
	assert_int_equal(n, 1 + 6 + 4 + 1 + 1 + 6 + 2);
	for (i = 0; i < n; i++)
		if (strlen(lines[i]) > 130)
			fail_msg("line %d is %zu columns: %s", i, strlen(lines[i]), lines[i]);
	assert_non_null(strstr(lines[0], "policy"));
	assert_non_null(strstr(lines[0], "JCT-mean"));
	assert_non_null(strstr(lines[0], "capviol"));
	assert_non_null(strstr(lines[7], "hours"));
	assert_non_null(strstr(lines[0], "lost-plc"));
	assert_non_null(strstr(lines[0], "lost-wait"));
	assert_non_null(strstr(lines[0], "tput"));
	assert_non_null(strstr(lines[12], "wait (h)"));
	assert_non_null(strstr(lines[12], "GPUh-wtd"));
	assert_non_null(strstr(lines[12], "33-128"));
	assert_non_null(strstr(lines[12], ">128"));
	assert_int_equal(strncmp(lines[13], six[0], strlen(six[0])), 0);
	assert_non_null(strstr(lines[19], "per job size"));
	for (i = 0; i < 6; i++) {
		const gp_sim_metrics_t *m = &more[i].r.m;
		const char *row = lines[1 + i];

		assert_int_equal(strncmp(row, six[i], strlen(six[i])), 0);
		if (i % 3 == 2) {
			/* no completed job: the means are "-", not nan */
			assert_null(strstr(row, "nan"));
			assert_non_null(strstr(row, " - "));
			assert_non_null(strstr(row, "0 (-)"));
			continue;
		}
		snprintf(want, sizeof(want), " %.2f ", m->jct_mean_s / 3600);
		assert_non_null(strstr(row, want));
		snprintf(want, sizeof(want), " %.2f ", m->wait_p95_s / 3600);
		assert_non_null(strstr(row, want));
		snprintf(want, sizeof(want), " %.1f ", 100 * m->gpu_util);
		assert_non_null(strstr(row, want));
		snprintf(want, sizeof(want), " %.1f ", m->throughput);
		assert_non_null(strstr(row, want));
		snprintf(want, sizeof(want), " %.0f ", m->lost_place_gpuh);
		assert_non_null(strstr(row, want));
		snprintf(want, sizeof(want), " %.0f ", m->lost_wait_gpuh);
		assert_non_null(strstr(row, want));
		snprintf(want, sizeof(want), " %d (%.0f%%) ", m->spread,
		         100.0 * m->spread / m->multi_node);
		assert_non_null(strstr(row, want));
		snprintf(want, sizeof(want), " %.1f ", m->violation_gpuh);
		assert_non_null(strstr(row, want));
		snprintf(want, sizeof(want), " %.0f", 100 * m->peak_rack_frac);
		assert_non_null(strstr(row, want));
	}
	free(buf);

	/* bad arguments */
	assert_int_equal(gp__sim_print_table(r6, 6, NULL), GP_EINVAL);
	r6[3] = NULL;
	f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(gp__sim_print_table(r6, 6, f), GP_EINVAL);
	fclose(f);
	free(buf);
}

/* ---- files -------------------------------------------------------------- */

static void check_summary_csv(const char *dir)
{
	char *text = slurp(dir, "summary.csv", NULL), *lines[8], *f[80];
	int i, nf;
	size_t k;

	assert_int_equal(split_lines(text, lines, 8), 3 + 1);
	nf = split_fields(lines[0], f, 80);
	assert_int_equal(nf, (int)NMETRICS + 1);
	assert_string_equal(f[0], "policy");
	for (k = 0; k < NMETRICS; k++)
		assert_string_equal(f[k + 1], metric_names[k]);
	/* the third name is quoted: it holds a comma */
	assert_int_equal(strncmp(lines[3], "\"o'dd,name\",", 12), 0);
	for (i = 0; i < 2; i++) {
		assert_int_equal(split_fields(lines[1 + i], f, 80), (int)NMETRICS + 1);
		assert_string_equal(f[0], policies[i]);
		for (k = 0; k < NMETRICS; k++) {
			bool is_int;
			double want = metric_value(&fx[i].r.m, metric_names[k], &is_int);

			if (is_int)
				assert_true(inum(f[k + 1]) == (long)want);
			else if (num(f[k + 1]) != want)
				fail_msg("%s %s: '%s' != %.17g", policies[i], metric_names[k],
				         f[k + 1], want);
		}
	}
	free(text);
}

static void check_jobs_csv(const char *dir)
{
	char *text = slurp(dir, "jobs.csv", NULL), *lines[16], *f[24];
	const gp_sim_job_t *b = &fx[1].jobs[1];
	int n, i, row = -1;

	n = split_lines(text, lines, 16);
	assert_int_equal(n, fx[0].r.njobs + fx[1].r.njobs + fx[2].r.njobs + 1);
	assert_string_equal(lines[0], "policy,id,gpus,nnodes,nleaves,nracks,submit_s,start_s,"
	                    "end_s,duration_s,slowdown,overhead,rejected,backfilled,violation,node,"
	                    "decision,spread,nodes,limit_s,killed");
	/* power-save's second job */
	for (i = 1; i < n && i < 16; i++)
		if (!strncmp(lines[i], "power-save,2,", 13))
			row = i;
	assert_true(row > 0);
	assert_int_equal(split_fields(lines[row], f, 24), 21);
	assert_int_equal(inum(f[1]), b->id);
	assert_int_equal(inum(f[2]), b->gpus);
	assert_int_equal(inum(f[3]), b->nnodes);
	assert_int_equal(inum(f[4]), b->nleaves);
	assert_int_equal(inum(f[5]), b->nracks);
	assert_true(num(f[6]) == b->submit_s);
	assert_true(num(f[7]) == b->start_s);
	assert_true(num(f[8]) == b->end_s);
	assert_true(num(f[9]) == b->duration_s);
	assert_true(num(f[10]) == b->slowdown);
	assert_true(num(f[11]) == b->overhead);
	assert_int_equal(inum(f[12]), b->rejected);
	assert_int_equal(inum(f[13]), b->backfilled);
	assert_int_equal(inum(f[14]), b->violation);
	assert_string_equal(f[15], ""); /* the test cluster has no nodes */
	assert_string_equal(f[16], "-"); /* a baseline's jobs have no gpuplace decision */
	assert_string_equal(f[18], "");
	assert_true(num(f[19]) == b->limit_s);
	assert_int_equal(inum(f[20]), b->killed);
	/* first-fit's third job was rejected: never started */
	for (i = 1, row = -1; i < n && i < 16; i++)
		if (!strncmp(lines[i], "first-fit,3,", 12))
			row = i;
	assert_true(row > 0);
	assert_int_equal(split_fields(lines[row], f, 24), 21);
	assert_true(num(f[7]) < 0);
	assert_int_equal(inum(f[12]), 1);
	free(text);
}

static void check_timeseries_csv(const char *dir)
{
	char *text = slurp(dir, "timeseries.csv", NULL), *lines[32], *f[8];
	int n, i;

	n = split_lines(text, lines, 32);
	assert_int_equal(n, 3 * NSAMPLES + 1);
	assert_string_equal(lines[0], "policy,t_s,util,queued,max_rack_frac,mean_rack_frac");
	for (i = 1; i < n; i++) {
		int p = (i - 1) / NSAMPLES, s = (i - 1) % NSAMPLES, k, nlim = 0;
		const struct fixture *x = &fx[p];
		double hi = -INFINITY, sum = 0;
		char *l = lines[i];

		if (p == 2) {
			/* the quoted name holds a comma: start at the comma after it */
			assert_int_equal(strncmp(l, "\"o'dd,name\",", 12), 0);
			l += 11;
		}
		assert_int_equal(split_fields(l, f, 8), 6);
		assert_true(num(f[1]) == x->t[s]);
		assert_true(num(f[2]) == x->util[s]);
		assert_int_equal(inum(f[3]), x->queued[s]);
		for (k = 0; k < NRACKS; k++) {
			double fr;

			if (!isfinite(x->limit[k]))
				continue;
			fr = x->rack_w[s * NRACKS + k] / x->limit[k];
			hi = fr > hi ? fr : hi;
			sum += fr;
			nlim++;
		}
		if (!nlim) {
			assert_string_equal(f[4], "");
			assert_string_equal(f[5], "");
		} else {
			assert_true(fabs(num(f[4]) - hi) < 1e-12);
			assert_true(fabs(num(f[5]) - sum / nlim) < 1e-12);
		}
	}
	free(text);
}

static void check_racks_csv(const char *dir)
{
	char *text = slurp(dir, "racks.csv", NULL), *lines[64], *f[8];
	int n;

	n = split_lines(text, lines, 64);
	assert_int_equal(n, 3 * NSAMPLES * NRACKS + 1);
	assert_string_equal(lines[0], "policy,t_s,rack,watts,limit_w");
	/* first-fit, sample 2, rack B: no limit */
	assert_int_equal(split_fields(lines[1 + 2 * NRACKS + 1], f, 8), 5);
	assert_string_equal(f[0], "first-fit");
	assert_true(num(f[1]) == fx[0].t[2]);
	assert_string_equal(f[2], "rackB");
	assert_true(num(f[3]) == fx[0].rack_w[2 * NRACKS + 1]);
	assert_string_equal(f[4], "");
	/* power-save, sample 0, rack A */
	assert_int_equal(split_fields(lines[1 + NSAMPLES * NRACKS], f, 8), 5);
	assert_string_equal(f[0], "power-save");
	assert_string_equal(f[2], "rackA");
	assert_true(num(f[4]) == fx[1].limit[0]);
	free(text);
}

static void check_summary_json(const char *dir)
{
	size_t len;
	char *text = slurp(dir, "summary.json", &len);
	struct json_tokener *tok = json_tokener_new();
	struct json_object *root, *v, *arr;
	size_t i, k;

	assert_non_null(tok);
	root = json_tokener_parse_ex(tok, text, (int)len);
	if (!root)
		fail_msg("summary.json: %s",
		         json_tokener_error_desc(json_tokener_get_error(tok)));
	json_tokener_free(tok);
	assert_true(json_object_is_type(root, json_type_object));
	assert_true(json_object_object_get_ex(root, "cluster", &v));
	assert_string_equal(json_object_get_string(v), cluster.name);
	assert_true(json_object_object_get_ex(root, "trace", &v));
	assert_string_equal(json_object_get_string(v), trace.name);
	assert_true(json_object_object_get_ex(root, "njobs", &v));
	assert_true(json_object_is_type(v, json_type_int));
	assert_int_equal(json_object_get_int(v), trace.njobs);
	assert_true(json_object_object_get_ex(root, "policies", &arr));
	assert_true(json_object_is_type(arr, json_type_array));
	assert_int_equal(json_object_array_length(arr), 3);
	for (i = 0; i < 3; i++) {
		struct json_object *p = json_object_array_get_idx(arr, i);

		assert_true(json_object_is_type(p, json_type_object));
		assert_true(json_object_object_get_ex(p, "policy", &v));
		assert_string_equal(json_object_get_string(v), policies[i]);
		for (k = 0; k < NMETRICS; k++) {
			bool is_int;
			double want = metric_value(&fx[i].r.m, metric_names[k], &is_int);

			if (!json_object_object_get_ex(p, metric_names[k], &v))
				fail_msg("%s: no %s", policies[i], metric_names[k]);
			if (!isfinite(want)) {
				assert_null(v);                 /* NaN is null */
			} else if (is_int) {
				assert_true(json_object_is_type(v, json_type_int));
				assert_true(json_object_get_int64(v) == (int64_t)want);
			} else {
				assert_true(json_object_is_type(v, json_type_double));
				if (json_object_get_double(v) != want)
					fail_msg("%s %s: %.17g != %.17g", policies[i], metric_names[k],
					         json_object_get_double(v), want);
			}
		}
	}
	json_object_put(root);
	free(text);
}

static void test_files(void **state)
{
	char *dir = make_tmpdir(), sub[2048];
	gp_error_t err;
	int rc;

	/* a directory that does not exist yet, two levels down */
	snprintf(sub, sizeof(sub), "%s/a/b/", dir);
	rc = gp__sim_write_files(&cluster, &trace, res, 3, sub, &err);
	if (rc)
		fail_msg("%s", err.text);
	check_summary_csv(sub);
	check_jobs_csv(sub);
	check_timeseries_csv(sub);
	check_racks_csv(sub);
	check_summary_json(sub);
	assert_true(no_tmp_files(sub));

	/* again over the existing files: replaced, same content */
	rc = gp__sim_write_files(&cluster, &trace, res, 3, sub, &err);
	if (rc)
		fail_msg("%s", err.text);
	check_summary_json(sub);
	assert_true(no_tmp_files(sub));
	rm_rf(dir);
	free(dir);
}

/* Errors: bad arguments and unwritable places. */
static void test_files_errors(void **state)
{
	static const struct {
		const char *sub;        /* under the temporary directory */
		int rc;
	} cases[] = {
		{ "file/out", GP_EIO },         /* a path under a regular file */
		{ "file", GP_EIO },             /* the directory is a regular file */
		{ "ro/out", GP_EIO },           /* a directory we may not write (unless root) */
		{ "ro", GP_EIO },
	};
	char *dir = make_tmpdir(), p[2048];
	const gp_sim_result_t *bad[2] = { res[0], NULL };
	gp_error_t err;
	size_t i;
	FILE *f;

	snprintf(p, sizeof(p), "%s/file", dir);
	f = fopen(p, "w");
	assert_non_null(f);
	fclose(f);
	snprintf(p, sizeof(p), "%s/ro", dir);
	assert_int_equal(mkdir(p, 0555), 0);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int rc;

		if (!strncmp(cases[i].sub, "ro", 2) && geteuid() == 0)
			continue;       /* root writes anywhere */
		snprintf(p, sizeof(p), "%s/%s", dir, cases[i].sub);
		err.text[0] = '\0';
		rc = gp__sim_write_files(&cluster, &trace, res, 3, p, &err);
		assert_int_equal(rc, cases[i].rc);
		if (!strstr(err.text, p))
			fail_msg("case %zu: '%s' does not name %s", i, err.text, p);
		rc = gp__sim_plot(res, 3, p, &err);
		assert_int_equal(rc, cases[i].rc);
		if (!strstr(err.text, p))
			fail_msg("case %zu (plot): '%s' does not name %s", i, err.text, p);
	}
	assert_int_equal(gp__sim_write_files(&cluster, &trace, bad, 2, dir, &err), GP_EINVAL);
	assert_int_equal(gp__sim_write_files(&cluster, &trace, res, 3, NULL, &err), GP_EINVAL);
	assert_int_equal(gp__sim_plot(bad, 2, dir, &err), GP_EINVAL);
	snprintf(p, sizeof(p), "%s/ro", dir);
	chmod(p, 0755);
	rm_rf(dir);
	free(dir);
}

/* ---- plots -------------------------------------------------------------- */

static void check_plot_files(const char *dir, const char *plot)
{
	static const unsigned char magic[8] = { 0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n' };
	char name[64], *text;
	size_t len;

	snprintf(name, sizeof(name), "%s.png", plot);
	text = slurp(dir, name, &len);
	assert_true(len > sizeof(magic));
	assert_memory_equal(text, magic, sizeof(magic));
	free(text);
	snprintf(name, sizeof(name), "%s.svg", plot);
	text = slurp(dir, name, NULL);
	assert_non_null(strstr(text, "<svg"));
	free(text);
	snprintf(name, sizeof(name), "%s.gp", plot);
	text = slurp(dir, name, NULL);
	assert_non_null(strstr(text, "set output"));
	free(text);
}

/* jct_cdf.2.dat: from 0 at the shortest completion time, one step per
 * completed job, in hours, up to 1. */
static void check_cdf(const char *dir, const struct fixture *x)
{
	char *text = slurp(dir, "jct_cdf.2.dat", NULL), *lines[16], *sp;
	double jct[3], y;
	int n, i, k, m = 0;

	for (k = 0; k < x->r.njobs; k++)
		if (!x->jobs[k].rejected)
			jct[m++] = (x->jobs[k].end_s - x->jobs[k].submit_s) / 3600;
	assert_int_equal(m, 2);
	if (jct[0] > jct[1]) {
		y = jct[0];
		jct[0] = jct[1];
		jct[1] = y;
	}
	n = split_lines(text, lines, 16);
	assert_int_equal(n, 2 + 1 + m);        /* two comments, the 0 point, the jobs */
	assert_int_equal(lines[0][0], '#');
	assert_non_null(strstr(lines[0], "power-save"));
	for (i = 2; i < n; i++) {
		sp = strchr(lines[i], ' ');
		assert_non_null(sp);
		*sp = '\0';
		k = i == 2 ? 0 : i - 3;
		if (fabs(num(lines[i]) - jct[k]) > 1e-12 * jct[k])
			fail_msg("line %d: %s h, want %.17g", i, lines[i], jct[k]);
		y = num(sp + 1);
		assert_true(fabs(y - (i == 2 ? 0.0 : (double)(i - 2) / m)) < 1e-15);
	}
	free(text);
}

static void test_plot(void **state)
{
	char *dir, *gp, want[64];
	gp_error_t err;
	int rc, i;

	if (!gnuplot_in_path()) {
		print_message("# SKIP gnuplot not found in PATH (install gnuplot-nox)\n");
		skip();
	}
	dir = make_tmpdir();
	rc = gp__sim_plot(res, 3, dir, &err);
	if (rc)
		fail_msg("%s", err.text);
	check_plot_files(dir, "jct_cdf");
	check_plot_files(dir, "utilization");
	check_plot_files(dir, "rack_power");
	/* names quoted for gnuplot: ' doubled; limits exist: percent plot */
	gp = slurp(dir, "jct_cdf.gp", NULL);
	for (i = 0; i < 2; i++) {
		snprintf(want, sizeof(want), "'%s (%d jobs)'", policies[i], fx[i].r.m.completed);
		if (!strstr(gp, want))
			fail_msg("jct_cdf.gp lacks %s", want);
	}
	assert_non_null(strstr(gp, "'o''dd,name (no completed jobs)'"));
	assert_non_null(strstr(gp, "'jct_cdf.1.dat'"));
	free(gp);
	check_cdf(dir, &fx[1]);
	gp = slurp(dir, "rack_power.gp", NULL);
	assert_non_null(strstr(gp, "cap/cooling limit"));
	assert_null(strstr(gp, "kW"));
	free(gp);
	assert_true(no_tmp_files(dir));
	rm_rf(dir);
	free(dir);
}

/* No rack with a finite limit: absolute kW plot; and no result at all. */
static void test_plot_no_limits(void **state)
{
	const gp_sim_result_t *only[1] = { res[2] };
	char *dir, *gp;
	gp_error_t err;
	int rc;

	if (!gnuplot_in_path()) {
		print_message("# SKIP gnuplot not found in PATH (install gnuplot-nox)\n");
		skip();
	}
	dir = make_tmpdir();
	rc = gp__sim_plot(only, 1, dir, &err);
	if (rc)
		fail_msg("%s", err.text);
	check_plot_files(dir, "jct_cdf");
	check_plot_files(dir, "utilization");
	check_plot_files(dir, "rack_power");
	gp = slurp(dir, "rack_power.gp", NULL);
	assert_non_null(strstr(gp, "kW"));
	assert_null(strstr(gp, "cap/cooling limit"));
	free(gp);
	rm_rf(dir);
	free(dir);

	dir = make_tmpdir();
	rc = gp__sim_plot(NULL, 0, dir, &err);
	if (rc)
		fail_msg("%s", err.text);
	check_plot_files(dir, "rack_power");
	rm_rf(dir);
	free(dir);
}

/* With PATH set to dir: no gnuplot, or a fake one that fails. */
static void with_path(const char *path, const char *dir, int want, const char *needle)
{
	char *old = getenv("PATH") ? strdup(getenv("PATH")) : NULL;
	gp_error_t err;
	int rc;

	assert_int_equal(setenv("PATH", path, 1), 0);
	err.text[0] = '\0';
	rc = gp__sim_plot(res, 3, dir, &err);
	if (old) {
		setenv("PATH", old, 1);
		free(old);
	} else {
		unsetenv("PATH");
	}
	assert_int_equal(rc, want);
	if (!strstr(err.text, needle))
		fail_msg("'%s' lacks '%s'", err.text, needle);
}

static void test_plot_failures(void **state)
{
	char *dir = make_tmpdir(), bin[1024], out[1024], fake[1100], script[1100];
	FILE *f;

	snprintf(bin, sizeof(bin), "%s/bin", dir);
	snprintf(out, sizeof(out), "%s/out", dir);
	assert_int_equal(mkdir(bin, 0755), 0);
	with_path(bin, out, GP_EIO, "gnuplot not found in PATH; install gnuplot-nox");

	/* a gnuplot that fails: its stderr is quoted, the script named */
	snprintf(fake, sizeof(fake), "%s/gnuplot", bin);
	f = fopen(fake, "w");
	assert_non_null(f);
	fprintf(f, "#!/bin/sh\necho \"line 3: something broke in $1\" >&2\nexit 1\n");
	fclose(f);
	assert_int_equal(chmod(fake, 0755), 0);
	with_path(bin, out, GP_EIO, "something broke in jct_cdf.gp");
	snprintf(script, sizeof(script), "%s/jct_cdf.gp", out);
	with_path(bin, out, GP_EIO, script);
	snprintf(script, sizeof(script), "%s/jct_cdf.log", out);
	with_path(bin, out, GP_EIO, script);
	rm_rf(dir);
	free(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_files_errors),
		cmocka_unit_test(test_plot),
		cmocka_unit_test(test_plot_no_limits),
		cmocka_unit_test(test_plot_failures),
	};

	return cmocka_run_group_tests_name("sim_out", tests, setup, NULL);
}
