/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * power_fixture.h - an in-memory cluster for the power tests.
 *
 * Profile "h100" (TDP 700 W, idle 70 W, lowest cap 200 W), five nodes
 * n1..n5 with 8 GPUs and 1000 W base each, and three racks:
 *   r1 = n1,n2  PowerCapKW=20 CoolingKW=18   (cooling binds)
 *   r2 = n3,n4  PowerCapKW=15 CoolingKW=30   (power binds)
 *   r3 = n5     PowerCapKW=10 CoolingKW=0    (= the cap)
 * Node n6 has no rack and an unknown GPU type.
 */
#ifndef GP_POWER_FIXTURE_H
#define GP_POWER_FIXTURE_H

#include "model.h"

#define PF_IDLE_NODE_W (1000.0 + 8 * 70.0)

/* A finished cluster with ntel zeroed telemetry entries (defaults set:
 * interval 10, timeout 2, stale 60, rack label "rack").  Freed with
 * gp_cluster_destroy(); aborts the test on failure. */
gp_cluster_t *pf_cluster(int ntel);

/* Set telemetry entry i: kind, URL/path, and a rack list ("r1,r2" or NULL)
 * and node list ("n1,n2" or NULL) by name. */
void pf_telemetry(gp_cluster_t *c, int i, const char *name, gp_telemetry_kind_t kind,
                  const char *url, const char *racks, const char *nodes);

/* Allocate GPUs [first, first+n) of node `node` to a new job with load `load`
 * (load < 0: allocate without a job). */
void pf_alloc(gp_state_t *s, int32_t node, int first, int n, double load);

#endif
