/* SPDX-License-Identifier: GPL-2.0-or-later */
/* cli.c - model loading and option values shared by the sub-commands. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "gpuplace.h"
#include "model.h"
#include "request.h"

int gp__model_load(const char *dir, const char *json, const char *state, gp_cluster_t **c,
                   gp_state_t **s, gp_error_t *err)
{
	int rc;

	*c = NULL;
	if (s)
		*s = NULL;
	if (!dir == !json)
		return gp__errorf(err, GP_EINVAL, "give exactly one of --conf-dir or --json");
	if (state && !s)
		return gp__errorf(err, GP_EINVAL, "a state was given where none is read");
	rc = dir ? gp_cluster_load_conf_dir(dir, c, err)
	         : gp_cluster_load_json(json, c, s && !state ? s : NULL, err);
	if (rc == GP_OK && state && (rc = gp_state_load_json(*c, state, s, err))) {
		gp_cluster_destroy(*c);
		*c = NULL;
	}
	return rc;
}

int gp__cli_long(const char *me, const char *opt, const char *s, long min, long max,
                 long *out)
{
	if (gp__parse_long(s, min, max, out)) {
		fprintf(stderr, "%s: %s: '%s' is not a whole number in [%ld, %ld]\n", me, opt, s,
		        min, max);
		return -1;
	}
	return 0;
}

int gp__cli_int32(const char *me, const char *opt, const char *s, long min, long max,
                  int32_t *out)
{
	long v;

	if (gp__cli_long(me, opt, s, min, max, &v))
		return -1;
	*out = (int32_t)v;
	return 0;
}

int gp__cli_double(const char *me, const char *opt, const char *s, double min, double max,
                   double *out)
{
	if (gp__parse_double(s, min, max, out)) {
		fprintf(stderr, "%s: %s: '%s' is not a number in [%g, %g]\n", me, opt, s, min, max);
		return -1;
	}
	return 0;
}

int gp__cli_size(const char *me, const char *opt, const char *s, double *out)
{
	char buf[64];
	size_t n = strlen(s);
	double mul = 1;

	if (n == 0 || n >= sizeof(buf))
		return gp__cli_double(me, opt, "", 1, 1, out);
	memcpy(buf, s, n + 1);
	switch (buf[n - 1]) {
	case 'K': case 'k': mul = 1024.0; break;
	case 'M': case 'm': mul = 1048576.0; break;
	case 'G': case 'g': mul = 1073741824.0; break;
	default: break;
	}
	if (mul > 1)
		buf[n - 1] = '\0';
	if (gp__cli_double(me, opt, buf, 1, 1e15, out))
		return -1;
	*out *= mul;
	return 0;
}

int gp__cli_option_error(const char *me, int opt, const char *arg, void (*usage)(FILE *))
{
	if (opt == ':')
		fprintf(stderr, "%s: %s needs an argument\n", me, arg);
	else
		fprintf(stderr, "%s: unknown option '%s'\n", me, arg);
	usage(stderr);
	return 2;
}

int gp__cli_action(const char *me, int argc, char **argv, const char *const actions[],
                   void (*usage)(FILE *), const char **action)
{
	char names[256];
	size_t used = 0;
	int i;

	*action = NULL;
	if (argc >= 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		usage(stdout);
		return 0;
	}
	names[0] = '\0';
	for (i = 0; actions[i]; i++) {
		if (argc >= 2 && !strcmp(argv[1], actions[i])) {
			*action = actions[i];
			return GP_CLI_RUN;
		}
		used += (size_t)snprintf(names + used, used < sizeof(names) ? sizeof(names) - used : 0,
		                         "%s%s", i ? (actions[i + 1] ? ", " : " or ") : "", actions[i]);
		if (used >= sizeof(names))
			used = sizeof(names) - 1;
	}
	if (argc < 2 || argv[1][0] == '-')
		fprintf(stderr, "%s: missing action (%s)\n", me, names);
	else
		fprintf(stderr, "%s: unknown action '%s'\n", me, argv[1]);
	usage(stderr);
	return 2;
}

/* Old spelling -> new, per command (NULL: every command). */
static const struct cli_alias {
	const char *cmd, *old, *new_;
} cli_aliases[] = {
	{ "simulate", "--out", "--out-dir" },
	{ "model", "--gpu", "--gpu-type" },
	{ "calibrate", "--gpu", "--gpu-type" },
	{ "probe", "--type", "--gpu-type" },
	{ "probe", "--json", "--json-out" },
	{ "synth", "--json", "--json-out" },
	{ "cluster", "--out", "--json-out" },
};

char **gp__cli_aliases(int *argc, char **argv)
{
	char **out = malloc(((size_t)*argc + 2) * sizeof(*out));
	int n = 0;

	if (!out)
		return NULL;
	for (int i = 0; i < *argc; i++) {
		const char *a = argv[i];

		out[n++] = argv[i];
		if (i < 2 || !strcmp(a, "--"))
			continue;
		if (!strcmp(argv[1], "place") && !strcmp(a, "--json-out") &&
		    (i + 1 == *argc || (argv[i + 1][0] == '-' && argv[i + 1][1]))) {
			fprintf(stderr, "gpuplace place: --json-out without FILE is now --json-out - "
			        "(standard output); the old form goes away in the next release\n");
			out[n++] = (char *)"-";
			continue;
		}
		for (size_t k = 0; k < sizeof(cli_aliases) / sizeof(cli_aliases[0]); k++) {
			const struct cli_alias *al = &cli_aliases[k];
			size_t ol = strlen(al->old);

			if (strcmp(argv[1], al->cmd) || strncmp(a, al->old, ol) || (a[ol] && a[ol] != '='))
				continue;
			fprintf(stderr, "gpuplace %s: %s is now %s; the old spelling goes away in the next "
			        "release\n", al->cmd, al->old, al->new_);
			if (!a[ol]) {
				out[n - 1] = (char *)al->new_;
			} else {
				/* --old=VALUE: the new name as one word, the value as the next */
				out[n - 1] = (char *)al->new_;
				out[n++] = (char *)(a + ol + 1);
			}
			break;
		}
	}
	out[n] = NULL;
	*argc = n;
	return out;
}

int gp__cli_domain_features(const char *me, const char *conf_dir, const char *json,
                            const gp_cluster_t *c, const char *instead, FILE *f)
{
	gp_domfeat_check_t chk;
	char feat[GP_NAME_MAX + 16], where[4200], fix[4200];
	int32_t first, nmiss, named;
	int k;

	if (gp__domain_features_check(c, &chk)) {
		fprintf(stderr, "%s: out of memory\n", me);
		return 1;
	}
	if (conf_dir) {
		size_t dl = strlen(conf_dir);

		while (dl > 1 && conf_dir[dl - 1] == '/')
			dl--; /* DIR/ names the same directory */
		snprintf(where, sizeof(where), "%.*s/slurm.conf", (int)dl, conf_dir);
		snprintf(fix, sizeof(fix), "gpuplace conf --conf-dir %.*s --what nodes", (int)dl,
		         conf_dir);
	} else {
		snprintf(where, sizeof(where), "%s: the nodes' features", json ? json : "-");
		snprintf(fix, sizeof(fix), "gpuplace conf --json %s --what nodes", json ? json : "-");
	}
	nmiss = chk.missing[GP_DOMKIND_SWITCH] + chk.missing[GP_DOMKIND_NVL];
	named = chk.named[GP_DOMKIND_SWITCH] + chk.named[GP_DOMKIND_NVL];
	first = chk.first_missing[GP_DOMKIND_SWITCH] >= 0 ? chk.first_missing[GP_DOMKIND_SWITCH]
	                                                  : chk.first_missing[GP_DOMKIND_NVL];
	if (nmiss && !gp__domain_feature_of(c, first, feat, sizeof(feat)))
		fprintf(f, "warning: %s: NodeName: the nodes of %d of %d topology domains lack the "
		        "feature job_submit/gpuplace constrains jobs to that domain with (Features=%s "
		        "is not on exactly the nodes of %s %s); a job it would keep to such a domain "
		        "goes to Slurm without that constraint%s; `%s` writes the NodeName lines with "
		        "them\n",
		        where, (int)nmiss, (int)named, feat,
		        gp__domain_kind_of(c, first) == GP_DOMKIND_NVL ? "NVLink domain" : "switch",
		        gp__domain_name_of(c, first), instead ? instead : "", fix);
	k = GP_DOMKIND_RACK;
	first = chk.first_missing[k];
	if (c->site.power_lic[0] && first >= 0 && !gp__domain_feature_of(c, first, feat, sizeof(feat)))
		fprintf(f, "warning: %s: NodeName: PowerLicenses=%s, and the nodes of %d of %d racks "
		        "lack their rack's feature (Features=%s is not on exactly the nodes of rack "
		        "%s); a job kept to such a rack excludes every other node instead and is not "
		        "moved by steering%s; `%s` writes the NodeName lines with them\n",
		        where, c->site.power_lic, (int)chk.missing[k], (int)chk.named[k], feat,
		        gp__domain_name_of(c, first), instead ? instead : "", fix);
	gp__domain_features_free(&chk);
	return 0;
}
