/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * jobspec.c - job hint strings ("gpus=64,tp=8,pp=2,params=70e9") to a
 * gp_job_profile_t and back.  Shared by `gpuplace model`, the placement
 * CLI and the Slurm plugin (hints from sbatch options / GPUPLACE_*).
 */
#include "config.h"

#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cost.h"

#define SPEC_MAX 1024

enum kind { K_INT, K_DBL, K_FRAC, K_ORDER };

struct key {
	const char *name;
	enum kind kind;
	size_t off;              /* offset in gp_job_profile_t */
	long max;                /* for K_INT */
};

#define OFF(f) offsetof(gp_job_profile_t, f)

static const struct key keys[] = {
	{ "gpus", K_INT, OFF(gpus), 1L << 24 },
	{ "nodes", K_INT, OFF(nodes), 1L << 24 },
	{ "gpus_per_node", K_INT, OFF(gpus_per_node), GP_MAX_GPUS_PER_NODE },
	{ "tp", K_INT, OFF(deg[GP_DIM_TP]), 1L << 24 },
	{ "cp", K_INT, OFF(deg[GP_DIM_CP]), 1L << 24 },
	{ "ep", K_INT, OFF(deg[GP_DIM_EP]), 1L << 24 },
	{ "dp", K_INT, OFF(deg[GP_DIM_DP]), 1L << 24 },
	{ "pp", K_INT, OFF(deg[GP_DIM_PP]), 1L << 24 },
	{ "order", K_ORDER, OFF(order), 0 },
	{ "params", K_DBL, OFF(params), 0 },
	{ "grad_bytes", K_DBL, OFF(grad_bytes), 0 },
	{ "mbs", K_DBL, OFF(micro_batch), 0 },
	{ "seq", K_DBL, OFF(seq), 0 },
	{ "hidden", K_DBL, OFF(hidden), 0 },
	{ "layers", K_DBL, OFF(layers), 0 },
	{ "microbatches", K_DBL, OFF(microbatches), 0 },
	{ "topk", K_DBL, OFF(topk), 0 },
	{ "tp_bytes", K_DBL, OFF(bytes[GP_DIM_TP]), 0 },
	{ "cp_bytes", K_DBL, OFF(bytes[GP_DIM_CP]), 0 },
	{ "ep_bytes", K_DBL, OFF(bytes[GP_DIM_EP]), 0 },
	{ "dp_bytes", K_DBL, OFF(bytes[GP_DIM_DP]), 0 },
	{ "pp_bytes", K_DBL, OFF(bytes[GP_DIM_PP]), 0 },
	{ "step_s", K_DBL, OFF(compute_s), 0 },
	{ "flops", K_DBL, OFF(flops), 0 },
	{ "eff", K_FRAC, OFF(efficiency), 0 },
	{ "overlap", K_FRAC, OFF(dp_overlap), 0 },
	{ "ckpt_bytes", K_DBL, OFF(ckpt_bytes), 0 },
	{ "restart_s", K_DBL, OFF(restart_s), 0 },
};

#define NKEYS (sizeof(keys) / sizeof(keys[0]))

/* "tp-cp-dp-pp": the four non-EP dimensions innermost first. */
static int parse_order(const char *v, int8_t order[4])
{
	static const int dims[4] = { GP_DIM_TP, GP_DIM_CP, GP_DIM_DP, GP_DIM_PP };
	unsigned seen = 0;
	int i = 0, d, j;

	while (*v) {
		if (i >= 4)
			return GP_EINVAL;
		for (j = 0, d = -1; j < 4; j++)
			if (!strncmp(v, gp__dim_name(dims[j]), 2) && (v[2] == '-' || !v[2]))
				d = dims[j];
		if (d < 0 || (seen & (1u << d)))
			return GP_EINVAL;
		seen |= 1u << d;
		order[i++] = (int8_t)d;
		v += 2;
		if (*v == '-' && v[1])
			v++;
		else if (*v)
			return GP_EINVAL;
	}
	return i == 4 ? GP_OK : GP_EINVAL;
}

static int set_key(const struct key *k, const char *val, gp_job_profile_t *job, gp_error_t *err)
{
	char *base = (char *)job;
	long l;
	double d;
	int rc;

	switch (k->kind) {
	case K_INT:
		rc = gp__parse_long(val, 1, k->max, &l);
		if (rc < 0)
			return gp__errorf(err, rc, "job hint %s: '%s' is not an integer in 1..%ld",
			                  k->name, val, k->max);
		*(int32_t *)(base + k->off) = (int32_t)l;
		return GP_OK;
	case K_DBL:
		rc = gp__parse_double(val, 0, 1e30, &d);
		if (rc == GP_OK && d <= 0)
			rc = GP_ERANGE;
		if (rc < 0)
			return gp__errorf(err, rc, "job hint %s: '%s' is not a positive number",
			                  k->name, val);
		*(double *)(base + k->off) = d;
		return GP_OK;
	case K_FRAC:
		rc = gp__parse_double(val, 0, 1, &d);
		if (rc < 0)
			return gp__errorf(err, rc, "job hint %s: '%s' is not a number in 0..1",
			                  k->name, val);
		/* "-0" reads as 0: the profile formats back and reparses to the
		 * same bits (found by tests/fuzz/fuzz_jobspec.c) */
		*(double *)(base + k->off) = d + 0.0;
		return GP_OK;
	case K_ORDER:
		if (parse_order(val, job->order) < 0)
			return gp__errorf(err, GP_EINVAL, "job hint order: '%s' is not a permutation "
			                  "of tp, cp, dp, pp joined by '-' (innermost first)", val);
		return GP_OK;
	}
	return GP_EINTERNAL;
}

static int check(const gp_job_profile_t *job, gp_error_t *err)
{
	long prod = 1;
	int d;

	for (d = 0; d < GP_NDIMS; d++)
		if (d != GP_DIM_EP && job->deg[d] > 0)
			prod *= job->deg[d];
	if (job->gpus > 0) {
		if (job->deg[GP_DIM_DP] > 0 && prod != job->gpus)
			return gp__errorf(err, GP_EINVAL, "job hint dp: tp*cp*pp*dp = %ld but gpus = %d",
			                  prod, (int)job->gpus);
		if (prod > job->gpus || job->gpus % prod)
			return gp__errorf(err, GP_EINVAL, "job hint gpus: %d is not a multiple of "
			                  "tp*cp*pp = %ld", (int)job->gpus, prod);
		if (job->nodes > 0 && job->gpus_per_node > 0 &&
		    (long)job->nodes * job->gpus_per_node != job->gpus)
			return gp__errorf(err, GP_EINVAL, "job hint gpus: %d != nodes %d x "
			                  "gpus_per_node %d", (int)job->gpus, (int)job->nodes,
			                  (int)job->gpus_per_node);
	}
	if (job->deg[GP_DIM_EP] > 1 && job->deg[GP_DIM_DP] > 0 &&
	    job->deg[GP_DIM_DP] % job->deg[GP_DIM_EP])
		return gp__errorf(err, GP_EINVAL, "job hint ep: %d does not divide dp = %d",
		                  (int)job->deg[GP_DIM_EP], (int)job->deg[GP_DIM_DP]);
	return GP_OK;
}

int gp__job_profile_parse(const char *spec, gp_job_profile_t *job, gp_error_t *err)
{
	char buf[SPEC_MAX];
	char *p, *next;
	unsigned long seen = 0;
	int rc;

	if (!job)
		return gp__errorf(err, GP_EINVAL, "no job profile to fill");
	gp__job_profile_init(job);
	if (!spec)
		return gp__errorf(err, GP_EINVAL, "no job hint string");
	if ((size_t)snprintf(buf, sizeof(buf), "%s", spec) >= sizeof(buf))
		return gp__errorf(err, GP_ERANGE, "job hint string longer than %d bytes",
		                  SPEC_MAX - 1);
	for (p = buf; p; p = next) {
		char *eq;
		size_t i;

		next = strchr(p, ',');
		if (next)
			*next++ = '\0';
		if (!*p) {
			if (!next && p == buf)
				break; /* empty string: no hints */
			rc = gp__errorf(err, GP_EINVAL, "job hint: empty item");
			goto fail;
		}
		eq = strchr(p, '=');
		if (!eq) {
			rc = gp__errorf(err, GP_EINVAL, "job hint %s: expected key=value", p);
			goto fail;
		}
		*eq = '\0';
		for (i = 0; i < NKEYS; i++)
			if (!strcmp(p, keys[i].name))
				break;
		if (i == NKEYS) {
			rc = gp__errorf(err, GP_EINVAL, "job hint %s: unknown key", p);
			goto fail;
		}
		if (seen & (1ul << i)) {
			rc = gp__errorf(err, GP_EINVAL, "job hint %s: given twice", p);
			goto fail;
		}
		seen |= 1ul << i;
		if ((rc = set_key(&keys[i], eq + 1, job, err)) < 0)
			goto fail;
	}
	if ((rc = check(job, err)) < 0)
		goto fail;
	return GP_OK;
fail:
	gp__job_profile_init(job);
	return rc;
}

int gp__job_profile_format(const gp_job_profile_t *job, char *buf, size_t len)
{
	const char *base = (const char *)job;
	size_t i, used = 0;
	int n;

	if (!job || !buf || !len)
		return GP_EINVAL;
	buf[0] = '\0';
	for (i = 0; i < NKEYS; i++) {
		const struct key *k = &keys[i];
		const char *sep = used ? "," : "";

		n = 0;
		switch (k->kind) {
		case K_INT:
			if (*(const int32_t *)(base + k->off) > 0)
				n = snprintf(buf + used, len - used, "%s%s=%d", sep, k->name,
				             (int)*(const int32_t *)(base + k->off));
			break;
		case K_DBL:
		case K_FRAC:
			if (*(const double *)(base + k->off) > 0 &&
			    !(k->off == OFF(grad_bytes) && job->grad_bytes == 2.0))
				n = snprintf(buf + used, len - used, "%s%s=%.17g", sep, k->name,
				             *(const double *)(base + k->off));
			break;
		case K_ORDER:
			if (job->order[0] || job->order[1] || job->order[2] || job->order[3])
				n = snprintf(buf + used, len - used, "%s%s=%s-%s-%s-%s", sep, k->name,
				             gp__dim_name(job->order[0]), gp__dim_name(job->order[1]),
				             gp__dim_name(job->order[2]), gp__dim_name(job->order[3]));
			break;
		}
		if (n < 0 || (size_t)n >= len - used)
			return GP_ERANGE;
		used += (size_t)n;
	}
	return GP_OK;
}

/*
 * Documented defaults for the sizes a hint leaves out (gpuplace(1), model,
 * "Defaults"); each constant names its source.
 */
/* Transformer parameters P ~= 12 l h^2 (Kaplan et al., "Scaling Laws for
 * Neural Language Models", 2020, sec. 2.1, N ~= 12 n_layer d_model^2;
 * Narayanan et al. SC'21 eq. 2 has the same leading term). */
#define DEF_PARAMS_PER_LAYER_H2 12.0
/* Aspect ratio h / l = 128: GPT-3 175B has d_model 12,288 over 96 layers
 * (Brown et al. 2020, Table 2.1); Kaplan et al. fig. 5 find the loss flat
 * over a wide range of aspect ratios around it. */
#define DEF_ASPECT 128.0
/* Hidden sizes are multiples of 128 (Megatron-LM pads to it for tensor
 * cores; every model of Brown et al. Table 2.1 from 1.3B up is one). */
#define DEF_HIDDEN_ROUND 128.0
/* Sequence length 2,048 (GPT-3 n_ctx, Brown et al. 2020 Table 2.1; also the
 * sequence length of every run in Narayanan et al. SC'21 Table 1). */
#define DEF_SEQ 2048.0
/* Microbatch 1: Narayanan et al. SC'21 sec. 3.4 / fig. 7-8 use b = 1..2 for
 * their largest models; 1 gives the smallest per-step TP/CP/PP volume, so
 * a default never overstates traffic. */
#define DEF_MICRO_BATCH 1.0

static size_t add_used(char *used, size_t len, size_t at, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static size_t add_used(char *used, size_t len, size_t at, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!used || at + 1 >= len)
		return at;
	if (at) {
		n = snprintf(used + at, len - at, ", ");
		at += n > 0 && (size_t)n < len - at ? (size_t)n : 0;
	}
	va_start(ap, fmt);
	n = vsnprintf(used + at, len - at, fmt, ap);
	va_end(ap);
	if (n > 0)
		at += (size_t)n < len - at ? (size_t)n : len - at - 1;
	return at;
}

int gp__job_profile_fill_defaults(const gp_cluster_t *c, gp_job_profile_t *job, char *used,
                                  size_t len)
{
	static const int dims[4] = { GP_DIM_TP, GP_DIM_CP, GP_DIM_EP, GP_DIM_PP };
	double eb = job->grad_bytes > 0 ? job->grad_bytes : 2.0;
	double dgb = c && c->site.default_grad_bytes > 0 ? c->site.default_grad_bytes : 1e9;
	bool model = false, any_size;
	size_t at = 0;
	int i, d, n = 0;

	if (used && len)
		used[0] = '\0';
	if (job->is_default)
		return 0;
	/* a dimension of degree > 1 without its own bytes needs the model's
	 * shape (b, s, h, l) for its volume */
	for (i = 0; i < 4; i++) {
		d = dims[i];
		if (job->deg[d] > 1 && !(job->bytes[d] > 0))
			model = true;
	}
	any_size = job->params > 0 || job->hidden > 0;
	for (d = 0; d < GP_NDIMS; d++)
		if (job->bytes[d] > 0)
			any_size = true;
	if (!model) {
		/* data parallel only: without any size, the site's default
		 * gradient volume */
		if (!any_size) {
			job->bytes[GP_DIM_DP] = dgb;
			at = add_used(used, len, at, "dp_bytes=%.3g (DefaultGradientBytes)", dgb);
			n++;
		}
		return n;
	}
	if (!(job->params > 0) && !(job->hidden > 0 && job->layers > 0)) {
		job->params = dgb / eb;
		at = add_used(used, len, at, "params=%.3g (DefaultGradientBytes / grad_bytes)",
		              job->params);
		n++;
	}
	if (!(job->hidden > 0)) {
		double P = job->params > 0 ? job->params : 0, h;

		if (job->layers > 0)
			h = sqrt(P / (DEF_PARAMS_PER_LAYER_H2 * job->layers));
		else
			h = cbrt(DEF_ASPECT * P / DEF_PARAMS_PER_LAYER_H2);
		h = fmax(DEF_HIDDEN_ROUND, DEF_HIDDEN_ROUND * floor(h / DEF_HIDDEN_ROUND + 0.5));
		job->hidden = h;
		at = add_used(used, len, at, "hidden=%.0f (P = 12 l h^2, h/l = 128)", h);
		n++;
	}
	if (!(job->layers > 0)) {
		double l = floor(job->params / (DEF_PARAMS_PER_LAYER_H2 * job->hidden * job->hidden) +
		                 0.5);
		double pp = job->deg[GP_DIM_PP] > 1 ? job->deg[GP_DIM_PP] : 1;

		/* every pipeline stage holds at least one layer */
		l = fmax(pp, pp * ceil(fmax(l, 1.0) / pp));
		job->layers = l;
		at = add_used(used, len, at, "layers=%.0f (P = 12 l h^2)", l);
		n++;
	}
	if (!(job->params > 0)) {
		job->params = DEF_PARAMS_PER_LAYER_H2 * job->layers * job->hidden * job->hidden;
		at = add_used(used, len, at, "params=%.3g (12 l h^2)", job->params);
		n++;
	}
	if (!(job->seq > 0)) {
		job->seq = DEF_SEQ;
		at = add_used(used, len, at, "seq=%.0f", DEF_SEQ);
		n++;
	}
	if (!(job->micro_batch > 0)) {
		job->micro_batch = DEF_MICRO_BATCH;
		at = add_used(used, len, at, "mbs=%.0f", DEF_MICRO_BATCH);
		n++;
	}
	return n;
}
