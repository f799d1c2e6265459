/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bench_calib.c - the cost model against measured nccl-tests tables.
 *
 * usage: bench_calib [--check] [-v] [FILE...]   (-v: every row)   (default: every *.txt of
 * tests/data/cost/measured under GP_SRCDIR or ".")
 *
 * For each table: median and worst |error| and the median signed error of
 * the predicted time (error = predicted / measured - 1); then the same over
 * all points, and per size decade (8 B .. 8 GiB in powers of ten).  The
 * model runs with each transport's default constants: nothing is fitted
 * per table.  --check exits 1 unless the median |error| is <= 10 % and the
 * median signed error of every decade within +-5 %.
 */
#include "config.h"

#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calib.h"

#define MAXPTS 100000
#define NDEC 11

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	if (n < 1)
		return NAN;
	qsort(v, (size_t)n, sizeof(*v), cmp_d);
	return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

static double worst(const double *v, int n)
{
	double w = 0;

	for (int i = 0; i < n; i++)
		if (fabs(v[i]) > fabs(w))
			w = v[i];
	return w;
}

static int cmp_s(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
	static double all_e[MAXPTS], all_a[MAXPTS], dec_e[NDEC][MAXPTS / 8];
	static int dec_n[NDEC];
	char *files[512];
	int nf = 0, i, n_all = 0, fail = 0, check = 0, verbose = 0;
	double tmp[MAXPTS];

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--check"))
			check = 1;
		else if (!strcmp(argv[i], "-v"))
			verbose = 1;
		else if (nf < 512)
			files[nf++] = strdup(argv[i]);
	}
	if (!nf) {
		const char *src = getenv("GP_SRCDIR");
		char dir[1024];
		DIR *d;
		struct dirent *e;

		snprintf(dir, sizeof(dir), "%s/tests/data/cost/measured", src ? src : ".");
		d = opendir(dir);
		if (!d) {
			fprintf(stderr, "bench_calib: cannot open %s\n", dir);
			return 2;
		}
		while ((e = readdir(d)) != NULL && nf < 512) {
			size_t l = strlen(e->d_name);
			char path[2048];

			if (l < 5 || strcmp(e->d_name + l - 4, ".txt"))
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
			files[nf++] = strdup(path);
		}
		closedir(d);
		qsort(files, (size_t)nf, sizeof(*files), cmp_s);
	}
	printf("%-32s %5s %6s %4s %9s %9s %11s\n", "table", "rows", "ranks", "net", "med|err|",
	       "worst", "med signed");
	for (i = 0; i < nf; i++) {
		gp_calib_table_t t;
		gp_error_t err = { "" };
		double *p, e[4096], a[4096];
		const char *base = strrchr(files[i], '/');
		int k, m = 0;

		if (gp__calib_read(files[i], &t, &err) != GP_OK) {
			fprintf(stderr, "bench_calib: %s\n", err.text);
			return 2;
		}
		p = calloc((size_t)t.n, sizeof(*p));
		if (!p || gp__calib_predict(&t, NULL, p, &err) != GP_OK) {
			fprintf(stderr, "bench_calib: %s: %s\n", files[i], err.text);
			return 2;
		}
		for (k = 0; k < t.n && m < 4096; k++, m++) {
			int dd = (int)floor(log10(t.bytes[k]));

			e[m] = p[k] / t.time_us[k] - 1.0;
			if (verbose)
				printf("  %14.0f %12.2f %12.2f %+8.1f%%\n", t.bytes[k], t.time_us[k], p[k],
				       100 * e[m]);
			a[m] = fabs(e[m]);
			if (n_all < MAXPTS) {
				all_e[n_all] = e[m];
				all_a[n_all++] = a[m];
			}
			if (dd >= 0 && dd < NDEC && dec_n[dd] < MAXPTS / 8)
				dec_e[dd][dec_n[dd]++] = e[m];
		}
		{
			double w = worst(e, m), ma, ms;

			memcpy(tmp, a, (size_t)m * sizeof(*a));
			ma = median(tmp, m);
			memcpy(tmp, e, (size_t)m * sizeof(*e));
			ms = median(tmp, m);
			printf("%-32s %5d %6d %4s %8.1f%% %8.1f%% %10.1f%%\n", base ? base + 1 : files[i],
			       (int)t.n, (int)(t.nodes * t.gpus_per_node), gp__transport_name(t.transport),
			       100 * ma, 100 * w, 100 * ms);
		}
		free(p);
		gp__calib_free(&t);
		free(files[i]);
	}
	{
		double w = worst(all_e, n_all), ma, ms;

		memcpy(tmp, all_a, (size_t)n_all * sizeof(*tmp));
		ma = median(tmp, n_all);
		memcpy(tmp, all_e, (size_t)n_all * sizeof(*tmp));
		ms = median(tmp, n_all);
		printf("%-32s %5d %6s %4s %8.1f%% %8.1f%% %10.1f%%\n", "ALL", n_all, "", "", 100 * ma,
		       100 * w, 100 * ms);
		if (!(ma <= 0.10))
			fail = 1;
	}
	printf("\n%-12s %5s %9s %9s %11s\n", "decade", "rows", "med|err|", "worst", "med signed");
	for (i = 0; i < NDEC; i++) {
		double ab[MAXPTS / 8], ms, ma;
		int k;

		if (!dec_n[i])
			continue;
		for (k = 0; k < dec_n[i]; k++)
			ab[k] = fabs(dec_e[i][k]);
		ma = median(ab, dec_n[i]);
		memcpy(tmp, dec_e[i], (size_t)dec_n[i] * sizeof(*tmp));
		ms = median(tmp, dec_n[i]);
		printf("1e%-2d..1e%-3d %5d %8.1f%% %8.1f%% %10.1f%%\n", i, i + 1, dec_n[i], 100 * ma,
		       100 * worst(dec_e[i], dec_n[i]), 100 * ms);
		if (!(fabs(ms) <= 0.05))
			fail = 1;
	}
	printf("\ntarget: median |error| <= 10 %%, |median signed error| <= 5 %% per decade: %s\n",
	       fail ? "NOT MET" : "met");
	return check && fail ? 1 : 0;
}
