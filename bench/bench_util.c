/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bench_util.c - shared helpers of the benchmarks. */
#include "config.h"

#include <stdlib.h>

#include "bench_util.h"

static uint64_t rng = 0x2545f4914f6cdd1dull;

double gp_bench_urand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (double)(rng >> 11) / 9007199254740992.0;
}

double gp_bench_now_us(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double gp_bench_quantile(double *v, int n, double q)
{
	int i;

	if (n <= 0)
		return 0;
	qsort(v, (size_t)n, sizeof(*v), cmp_d);
	i = (int)(q * (n - 1) + 0.5);
	return v[i < 0 ? 0 : i >= n ? n - 1 : i];
}

void gp_bench_occupy(const gp_cluster_t *c, gp_state_t *s, double occ)
{
	int32_t i, k, g;

	for (i = 0; i < c->nnodes; i++) {
		double u = gp_bench_urand();
		int ng = c->nodes[i].ngpus;

		s->alloc_mask[i] = 0;
		if (u < occ - 0.1) {
			s->alloc_mask[i] = ng >= 32 ? ~0u : (1u << ng) - 1;
		} else if (u < occ + 0.1 && ng > 1) {
			k = 1 + (int)(gp_bench_urand() * (ng - 1));
			while (gp__popcount(s->alloc_mask[i]) < k) {
				g = (int)(gp_bench_urand() * ng);
				s->alloc_mask[i] |= 1u << g;
			}
		}
	}
}
