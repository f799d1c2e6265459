/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * calib.h - measured collective tables (nccl-tests text output) and the
 * cost model's error on them: the calibration set, `gpuplace calibrate`
 * and bench_calib share this reader, the prediction and the fit.
 *
 * A table is what one nccl-tests run prints: the "# Rank N ... on HOST
 * device D" lines give the ranks and their nodes (-g and MPI layouts
 * alike), "# Collective test starting: NAME" the collective, and every
 * data row its size and time: the smaller of the out-of-place and in-place
 * times, which move the same bytes (a stall in one of them is noise).  A line "# gpuplace-calib:
 * key=value ..." adds what the output does not say (collective, nodes,
 * gpus_per_node, gpu, transport, nic_gbps, rails, pcie_p2p, algo, cluster);
 * values given there win over the header.  algo=ring|tree|nvls|... is the
 * algorithm the run forced (NCCL_ALGO): the table is predicted with that
 * algorithm instead of the one the model would pick.
 *
 * Thread safety: reentrant; a table belongs to its caller.
 */
#ifndef GP_CALIB_H
#define GP_CALIB_H

#include "cost.h"

typedef struct gp_calib_table {
	char path[GP_PATH_MAX];
	char cluster[GP_NAME_MAX];  /* tables of one cluster share a name ("" = none) */
	char gpu[GP_NAME_MAX];      /* built-in GPU name (default h100) */
	gp_coll_t coll;
	int32_t nodes;              /* nodes, from the Rank lines or the keys */
	int32_t gpus_per_node;
	int32_t rails;              /* NICs per node (default one per GPU) */
	int32_t transport;          /* gp_transport_t (default ib) */
	double nic_gbps;            /* per NIC line rate, GB/s (default 50) */
	int32_t algo;               /* gp_algo_t the run forced (NCCL_ALGO); GP_ALGO_AUTO = NCCL's choice */
	bool no_pcie_p2p;           /* pcie_p2p=no: no PCIe peer-to-peer between the GPUs
	                             * (GpuProfile PCIeP2P=no) */
	int32_t n;                  /* rows */
	double *bytes;              /* malloc'd, n entries */
	double *time_us;            /* measured time, n entries (min of out-of-place, in-place) */
} gp_calib_table_t;

/* Read one table.  Unknown calib keys, bad numbers and a file without rows
 * are errors naming file, line and key.  *t is reset first; free with
 * gp__calib_free().  0, GP_EIO, GP_EINVAL or GP_ENOMEM. */
int gp__calib_read(const char *path, gp_calib_table_t *t, gp_error_t *err);
void gp__calib_free(gp_calib_table_t *t);

/* Predict every row of t (microseconds into pred_us[t->n]) with the given
 * transport constants (fields at 0 = the transport's defaults).  0 or an
 * error of the cost model. */
int gp__calib_predict(const gp_calib_table_t *t, const gp_net_consts_t *net, double *pred_us,
                      gp_error_t *err);

/* Least squares on log(predicted / measured) over the tables (Huber: linear
 * beyond 10 %, so single outliers do not steer it): fits the constants of
 * *net chosen by mask (which gives the transport and the starting point;
 * zero fields start at the defaults).  Two starts, kept the lower loss:
 * descent from the starting point, and descent from the best point of a
 * bounded search in log space (every factor of 2 of each constant between
 * its bounds), so a constant whose start lies on a flat part of the loss
 * still moves.  *rms_out = root mean square of the log error after the
 * fit.  0 or an error. */
enum {
	GP_FIT_STEP = 1u << 0,   /* NetStepUs */
	GP_FIT_EFF = 1u << 1,    /* NetEfficiency */
	GP_FIT_FILL = 1u << 2,   /* NetFillUs */
	GP_FIT_LEVEL = 1u << 3,  /* NetFillLevelUs */
	GP_FIT_ALL = 0xfu,
};
/* mask: GP_FIT_* bits of the constants to fit; the others keep *net's
 * value or the transport's default. */
int gp__calib_fit(gp_calib_table_t *const *t, int ntables, gp_net_consts_t *net, unsigned mask,
                  double *rms_out, gp_error_t *err);

#endif /* GP_CALIB_H */
