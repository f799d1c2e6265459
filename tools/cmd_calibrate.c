/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * cmd_calibrate.c - `gpuplace calibrate`: fit the site's transport
 * constants to its own nccl-tests runs and print the gpuplace.conf keys.
 *
 * usage: gpuplace calibrate [--defaults] [--transport T] [--gpu-type G] [--nic-gbps X]
 *        [--rails R] [--predict FILE...] FILE...
 *
 * Every FILE is standard nccl-tests text output (any collective, size
 * range, node count, -g or MPI layout).  The fit (least squares on the log
 * of predicted / measured time) runs on the FILEs; the tables after
 * --predict are only predicted with the fitted constants, which is how a
 * site checks the fit on another node count or collective.
 */
#include "config.h"

#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "calib.h"
#include "commands.h"

#define ME "gpuplace calibrate"
#define MAXT 256

static void usage(FILE *f)
{
	fprintf(f,
	        "usage: gpuplace calibrate [OPTIONS] FILE... [--predict FILE...]\n"
	        "\n"
	        "Fit the inter-node transport constants (NetStepUs, NetEfficiency, NetFillUs,\n"
	        "NetFillLevelUs)\n"
	        "to nccl-tests output measured on this site, print predicted vs measured\n"
	        "time per size and the FabricLevel=0 line for gpuplace.conf.\n"
	        "\n"
	        "  --transport T   ib roce efa tcp offload (default: the files' key, else ib)\n"
	        "  --gpu-type G    built-in GPU of the nodes (default: the files' key, else h100)\n"
	        "  --nic-gbps X    per-NIC line rate, GB/s (default: the files' key, else 50)\n"
	        "  --rails R       NICs per node (default: the files' key, else one per GPU)\n"
	        "  --predict       the files that follow are predicted, not fitted\n"
	        "  --fit LIST      constants to fit: step,eff,fill,level (default all; the\n"
	        "                  others keep the transport's defaults)\n"
	        "  --defaults      print every transport's default constants and exit\n");
}

/* median and worst |error| of a table under net; prints rows */
static int report(gp_calib_table_t *t, const gp_net_consts_t *net, double *med, double *worst)
{
	double *p = calloc((size_t)t->n, sizeof(*p)), *a = calloc((size_t)t->n, sizeof(*a));
	gp_error_t err = { "" };
	int i, j;

	if (!p || !a || gp__calib_predict(t, net, p, &err) != GP_OK) {
		fprintf(stderr, ME ": %s: %s\n", t->path, p && a ? err.text : "out of memory");
		free(p);
		free(a);
		return -1;
	}
	printf("# %s: %s, %d nodes x %d GPUs, %s%s%s\n", t->path, gp__coll_name(t->coll),
	       (int)t->nodes, (int)t->gpus_per_node, gp__transport_name(t->transport),
	       t->algo != GP_ALGO_AUTO ? ", algo=" : "",
	       t->algo != GP_ALGO_AUTO ? gp__algo_name((gp_algo_t)t->algo) : "");
	printf("# %14s %12s %12s %8s\n", "size(B)", "measured_us", "predicted_us", "error");
	*worst = 0;
	for (i = 0; i < t->n; i++) {
		double e = p[i] / t->time_us[i] - 1.0;

		printf("  %14.0f %12.2f %12.2f %+7.1f%%\n", t->bytes[i], t->time_us[i], p[i], 100 * e);
		a[i] = fabs(e);
		if (a[i] > *worst)
			*worst = a[i];
	}
	/* median by insertion sort (tables are short) */
	for (i = 1; i < t->n; i++)
		for (j = i; j > 0 && a[j - 1] > a[j]; j--) {
			double x = a[j];

			a[j] = a[j - 1];
			a[j - 1] = x;
		}
	*med = t->n % 2 ? a[t->n / 2] : 0.5 * (a[t->n / 2 - 1] + a[t->n / 2]);
	printf("# median |error| %.1f %%, worst %.1f %%\n", 100 * *med, 100 * *worst);
	free(p);
	free(a);
	return 0;
}

/* "step,eff,fill,level" to GP_FIT_* bits; 0 or -1 (message printed). */
static int parse_fit(const char *s, unsigned *mask)
{
	static const char *const names[] = { "step", "eff", "fill", "level" };
	const char *p = s;

	*mask = 0;
	while (*p) {
		size_t l = strcspn(p, ","), k;

		for (k = 0; k < 4; k++)
			if (l == strlen(names[k]) && !strncmp(p, names[k], l))
				break;
		if (k == 4) {
			fprintf(stderr, ME ": --fit: '%.*s' is not step, eff, fill or level\n", (int)l, p);
			return -1;
		}
		*mask |= 1u << k;
		p += l;
		if (*p == ',')
			p++;
	}
	if (!*mask) {
		fprintf(stderr, ME ": --fit: no constant named\n");
		return -1;
	}
	return 0;
}

/* The default constants of every transport, as the model uses them. */
static int print_defaults(void)
{
	int t;

	printf("%-8s %6s %10s %13s %10s %15s %11s %11s\n", "#transport", "rdma", "NetStepUs",
	       "NetEfficiency", "NetFillUs", "NetFillLevelUs", "fill_bytes", "step_floor");
	for (t = 0; t < GP_NET_NTRANSPORTS; t++) {
		gp_cluster_t c;
		gp_net_consts_t n;

		memset(&c, 0, sizeof(c));
		c.levels[0].transport = t;
		gp__cost_net(&c, &n);
		printf("%-10s %4s %10.3g %13.3g %10.3g %15.3g %11.0f %8.3g/%.3g\n",
		       gp__transport_name(t), n.rdma ? "yes" : "no", n.step_us, n.eff, n.fill_us,
		       n.fill_level_us, n.fill_bytes, n.floor_us, n.floor_us + n.floor_simple_us);
	}
	return ferror(stdout) ? 1 : 0;
}

/* What the command line asks for: the tables read (a file is read where
 * the command line names it, so errors come in its order), which of them
 * follow --predict, and the values that override the files' keys. */
struct args {
	gp_calib_table_t tab[MAXT];
	bool predict[MAXT];
	int nt;                /* tables read; gp__calib_free() each */
	int transport;         /* --transport, or -1 */
	const char *gpu;       /* --gpu, or NULL */
	double nic;            /* --nic-gbps, or 0 */
	long rails;            /* --rails, or 0 */
	unsigned mask;         /* --fit: GP_FIT_* */
	bool defaults;         /* --defaults: print them, nothing else */
};

/* One option into *a; 0, or 2 with the message printed. */
static int parse_opt(struct args *a, int opt, const char *arg)
{
	switch (opt) {
	case 't':
		if (gp__transport_parse(arg, &a->transport)) {
			fprintf(stderr, ME ": --transport: '%s' is not ib, roce, efa, tcp or offload\n", arg);
			return 2;
		}
		return 0;
	case 'g':
		if (!gp__cost_gpu_builtin(arg, NULL)) {
			fprintf(stderr, ME ": --gpu-type: unknown GPU '%s'\n", arg);
			return 2;
		}
		a->gpu = arg;
		return 0;
	case 'N':
		if (gp__parse_double(arg, 0.001, 1e6, &a->nic)) {
			fprintf(stderr, ME ": --nic-gbps: '%s' is not a number in [0.001, 1e6]\n", arg);
			return 2;
		}
		return 0;
	case 'r':
		if (gp__parse_long(arg, 1, 32, &a->rails)) {
			fprintf(stderr, ME ": --rails: '%s' is not a whole number in [1, 32]\n", arg);
			return 2;
		}
		return 0;
	case 'F':
		return parse_fit(arg, &a->mask) ? 2 : 0;
	}
	usage(stderr);
	return 2;
}

/* Options and files into *a (a->nt tables read, whatever the result):
 * GP_CLI_RUN, or the exit status (0 --help, 1 too many files, 2 usage or
 * a file that cannot be read). */
static int parse_args(int argc, char **argv, struct args *a)
{
	static const struct option opts[] = {
		{ "transport", required_argument, NULL, 't' },
		{ "gpu-type", required_argument, NULL, 'g' },
		{ "nic-gbps", required_argument, NULL, 'N' },
		{ "rails", required_argument, NULL, 'r' },
		{ "predict", no_argument, NULL, 'P' },
		{ "defaults", no_argument, NULL, 'D' },
		{ "fit", required_argument, NULL, 'F' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	gp_error_t err = { "" };
	bool in_predict = false;
	int opt;

	memset(a, 0, sizeof(*a));
	a->transport = -1;
	a->mask = GP_FIT_ALL;
	optind = 1;
	/* "+": options and files in order, so --predict splits the list */
	while (optind < argc) {
		opt = getopt_long(argc, argv, "+h", opts, NULL);
		if (opt == -1) {
			if (a->nt >= MAXT) {
				fprintf(stderr, ME ": more than %d files\n", MAXT);
				return 1;
			}
			if (gp__calib_read(argv[optind], &a->tab[a->nt], &err) != GP_OK) {
				fprintf(stderr, ME ": %s\n", err.text);
				return 2;
			}
			a->predict[a->nt++] = in_predict;
			optind++;
		} else if (opt == 'P') {
			in_predict = true;
		} else if (opt == 'D') {
			a->defaults = true;
			return GP_CLI_RUN;
		} else if (opt == 'h') {
			usage(stdout);
			return 0;
		} else if (parse_opt(a, opt, optarg)) {
			return 2;
		}
	}
	return GP_CLI_RUN;
}

/* The options' values over every table's keys, and the tables to fit on
 * into fit[] (*nfit); 0, or 2 with the message printed. */
static int select_fit(struct args *a, gp_calib_table_t **fit, int *nfit)
{
	int i;

	*nfit = 0;
	for (i = 0; i < a->nt; i++) {
		if (a->transport >= 0)
			a->tab[i].transport = a->transport;
		if (a->gpu)
			snprintf(a->tab[i].gpu, sizeof(a->tab[i].gpu), "%s", a->gpu);
		if (a->nic > 0)
			a->tab[i].nic_gbps = a->nic;
		if (a->rails > 0)
			a->tab[i].rails = (int32_t)a->rails;
		if (!a->predict[i])
			fit[(*nfit)++] = &a->tab[i];
	}
	if (!*nfit) {
		fprintf(stderr, ME ": no nccl-tests file to fit\n");
		usage(stderr);
		return 2;
	}
	for (i = 1; i < *nfit; i++)
		if (fit[i]->transport != fit[0]->transport) {
			fprintf(stderr, ME ": %s and %s name different transports\n", fit[0]->path,
			        fit[i]->path);
			return 2;
		}
	return 0;
}

/* Fit on fit[], then every table measured vs predicted and the
 * gpuplace.conf line; the exit status. */
static int fit_and_report(struct args *a, gp_calib_table_t **fit, int nfit)
{
	gp_net_consts_t net;
	gp_error_t err = { "" };
	double rms = 0;
	int i;

	memset(&net, 0, sizeof(net));
	net.transport = fit[0]->transport;
	if (gp__calib_fit(fit, nfit, &net, a->mask, &rms, &err) != GP_OK) {
		fprintf(stderr, ME ": %s\n", err.text);
		return 1;
	}
	for (i = 0; i < a->nt; i++) {
		double med, worst;

		printf("%s", i ? "\n" : "");
		if (a->predict[i])
			printf("# predicted with the fitted constants (not fitted on)\n");
		if (report(&a->tab[i], &net, &med, &worst))
			return 1;
	}
	printf("\n# fitted on %d table(s): rms (Huber) log error %.3f\n", nfit, rms);
	printf("# gpuplace.conf:\n");
	printf("FabricLevel=0 LinkGBps=%g Transport=%s NetStepUs=%.3g NetEfficiency=%.3g "
	       "NetFillUs=%.3g NetFillLevelUs=%.3g\n", fit[0]->nic_gbps,
	       gp__transport_name(net.transport), net.step_us, net.eff, net.fill_us,
	       net.fill_level_us);
	return ferror(stdout) ? 1 : 0;
}

int gp_cmd_calibrate(int argc, char **argv)
{
	static struct args a; /* MAXT tables: too large for the stack */
	gp_calib_table_t *fit[MAXT];
	int nfit = 0, rc, i;

	rc = parse_args(argc, argv, &a);
	if (rc == GP_CLI_RUN && a.defaults)
		rc = print_defaults();
	else if (rc == GP_CLI_RUN && !(rc = select_fit(&a, fit, &nfit)))
		rc = fit_and_report(&a, fit, nfit);
	for (i = 0; i < a.nt; i++)
		gp__calib_free(&a.tab[i]);
	return rc;
}
