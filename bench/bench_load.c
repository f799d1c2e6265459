/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench_load.c - load time and peak memory of a large cluster model, from
 * its Slurm configuration directory and from its JSON export, side by side.
 *
 * A synthetic cluster (default 16,384 nodes x 8 GPUs, the size of Meta's
 * Llama 3 training cluster) is written once as a conf dir and as JSON into
 * a temporary directory.  Every measurement runs in a fresh process (this
 * program re-executed), which times the load with CLOCK_MONOTONIC; the
 * parent reads the child's peak resident set (ru_maxrss) from wait4().
 * The medians of several repetitions are printed with their ratio and the
 * targets (load < 2 s, peak < 256 MiB).
 *
 * usage: bench_load [--nodes N] [--reps R] [--keep]
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "model.h"
#include "synth.h"

#define TARGET_S 2.0
#define TARGET_MIB 256.0

/* Child mode: load once, print the seconds on stdout. */
static int child(const char *kind, const char *path)
{
	struct timespec t0, t1;
	gp_cluster_t *c = NULL;
	gp_error_t err = { "" };
	int rc = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (!strcmp(kind, "conf"))
		rc = gp_cluster_load_conf_dir(path, &c, &err);
	else if (!strcmp(kind, "json"))
		rc = gp_cluster_load_json(path, &c, NULL, &err);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (rc) {
		fprintf(stderr, "bench_load: %s: %s\n", kind, err.text);
		return 1;
	}
	printf("%.9f\n", (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);
	gp_cluster_destroy(c);
	return 0;
}

/* Run one child; seconds and peak RSS (KiB) out. */
static int measure(const char *self, const char *kind, const char *path, double *secs,
                   long *rss_kib)
{
	struct rusage ru;
	char buf[64] = "";
	int fd[2], status;
	ssize_t n;
	pid_t pid;

	if (pipe(fd) < 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(fd[1], STDOUT_FILENO);
		close(fd[0]);
		close(fd[1]);
		execl(self, self, "--child", kind, path, (char *)NULL);
		_exit(127);
	}
	close(fd[1]);
	n = read(fd[0], buf, sizeof(buf) - 1);
	close(fd[0]);
	if (wait4(pid, &status, 0, &ru) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return -1;
	buf[n > 0 ? n : 0] = '\0';
	if (strchr(buf, '\n'))
		*strchr(buf, '\n') = '\0';
	if (gp__parse_double(buf, 0, 1e6, secs))
		return -1;
	*rss_kib = ru.ru_maxrss;   /* Linux: KiB */
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static long file_size(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

int main(int argc, char **argv)
{
	const char *tmp = getenv("TMPDIR");
	char dir[512], conf[600], json[600], self[4096], path[700];
	static const char *const kinds[2] = { "conf", "json" };
	double t[2][64], m[2][64], mt[2], mm[2], base_t, none_mib;
	gp_synth_params_t p;
	gp_cluster_t *c = NULL;
	gp_error_t err = { "" };
	long nodes = 16384, reps = 5, rss, conf_bytes;
	int keep = 0, i, k, fail = 0, status;
	pid_t pid;
	ssize_t n;

	if (argc == 4 && !strcmp(argv[1], "--child"))
		return child(argv[2], argv[3]);
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--nodes") && i + 1 < argc) {
			if (gp__parse_long(argv[++i], 1, 1000000, &nodes))
				goto usage;
		} else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
			if (gp__parse_long(argv[++i], 1, 64, &reps))
				goto usage;
		} else if (!strcmp(argv[i], "--keep")) {
			keep = 1;
		} else {
			goto usage;
		}
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0) {
		fprintf(stderr, "bench_load: cannot find my own executable\n");
		return 1;
	}
	self[n] = '\0';

	snprintf(dir, sizeof(dir), "%s/gp-bench-load-XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		fprintf(stderr, "bench_load: mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	snprintf(conf, sizeof(conf), "%s/conf", dir);
	snprintf(json, sizeof(json), "%s/model.json", dir);
	gp__synth_defaults(&p);
	p.nodes = (int32_t)nodes;
	/* generate in a child so this process stays small: a forked child's
	 * ru_maxrss also counts the pages it shared with us before exec */
	pid = fork();
	if (pid == 0) {
		if (gp__synth_write_conf(&p, conf, &err) || gp__synth_build(&p, &c, &err) ||
		    gp_cluster_save_json(c, NULL, json, &err)) {
			fprintf(stderr, "bench_load: %s\n", err.text);
			_exit(1);
		}
		gp_cluster_destroy(c);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0) {
		fprintf(stderr, "bench_load: generating the cluster failed\n");
		return 1;
	}
	conf_bytes = 0;
	for (i = 0; i < 4; i++) {
		static const char *const f[] = { "slurm.conf", "topology.conf", "gres.conf",
			"gpuplace.conf" };

		snprintf(path, sizeof(path), "%s/%s", conf, f[i]);
		conf_bytes += file_size(path);
	}

	/* a process that loads nothing: the floor every peak includes */
	if (measure(self, "none", "-", &base_t, &rss)) {
		fprintf(stderr, "bench_load: the child process failed\n");
		return 1;
	}
	none_mib = rss / 1024.0;
	printf("bench_load: %ld nodes x %d GPUs (gpuplace synth defaults), %ld repetitions, "
	       "medians\n", nodes, (int)p.gpus_per_node, reps);
	printf("  conf dir %s: %.1f MiB in 4 files; JSON %.1f MiB\n", conf, conf_bytes / 1048576.0,
	       file_size(json) / 1048576.0);
	printf("  empty process peak RSS: %.1f MiB (included in the peaks below)\n", none_mib);

	/* interleave the formats so drift affects both alike */
	for (i = 0; i < reps; i++)
		for (k = 0; k < 2; k++) {
			if (measure(self, kinds[k], k ? json : conf, &t[k][i], &rss)) {
				fprintf(stderr, "bench_load: loading %s failed\n", kinds[k]);
				return 1;
			}
			m[k][i] = rss / 1024.0;
		}
	for (k = 0; k < 2; k++) {
		mt[k] = median(t[k], (int)reps);
		mm[k] = median(m[k], (int)reps);
	}
	printf("\n  %-6s %12s %14s\n", "format", "load time", "peak RSS");
	for (k = 0; k < 2; k++)
		printf("  %-6s %10.3f s %10.1f MiB\n", kinds[k], mt[k], mm[k]);
	printf("\n  ratio json/conf: load time %.2fx, peak RSS %.2fx\n", mt[1] / mt[0],
	       mm[1] / mm[0]);
	printf("  targets: load < %.0f s, peak < %.0f MiB\n", TARGET_S, TARGET_MIB);
	for (k = 0; k < 2; k++) {
		int ok_t = mt[k] < TARGET_S, ok_m = mm[k] < TARGET_MIB;

		printf("    %-6s time %s, memory %s\n", kinds[k], ok_t ? "PASS" : "FAIL",
		       ok_m ? "PASS" : "FAIL");
		fail |= !ok_t || !ok_m;
	}
	if (!keep) {
		static const char *const f[] = { "conf/slurm.conf", "conf/topology.conf",
			"conf/gres.conf", "conf/gpuplace.conf", "model.json" };

		for (i = 0; i < 5; i++) {
			snprintf(path, sizeof(path), "%s/%s", dir, f[i]);
			unlink(path);
		}
		rmdir(conf);
		rmdir(dir);
	} else {
		printf("  kept %s\n", dir);
	}
	return fail;
usage:
	fprintf(stderr, "usage: bench_load [--nodes N] [--reps R] [--keep]\n");
	return 2;
}
