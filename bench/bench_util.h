/* SPDX-License-Identifier: GPL-2.0-or-later */
/* bench_util.h - what the benchmarks share: a seeded generator, clocks,
 * percentiles and the synthetic occupancy of a cluster. */
#ifndef GP_BENCH_UTIL_H
#define GP_BENCH_UTIL_H

#include <time.h>

#include "model.h"

/* Uniform in [0, 1), xorshift64 from a fixed seed (runs are repeatable). */
double gp_bench_urand(void);

/* Microseconds on clock clk (CLOCK_MONOTONIC or CLOCK_THREAD_CPUTIME_ID). */
double gp_bench_now_us(clockid_t clk);

/* Sort v[0..n-1] and return its q-quantile (0 <= q <= 1). */
double gp_bench_quantile(double *v, int n, double q);

/*
 * Occupy cluster c in state s to a mean GPU occupancy occ: a fraction
 * occ - 0.1 of the nodes fully busy, 0.2 partly busy (random GPUs), the rest
 * idle, so there is fragmentation to work around.
 */
void gp_bench_occupy(const gp_cluster_t *c, gp_state_t *s, double occ);

#endif
