/* SPDX-License-Identifier: GPL-2.0-or-later */
/* policy_load.c - the site's policy from slurm.conf's SchedulerParameters
 * (gp__policy_load, declared in cost_model/policy.h).  Reading files is the
 * conf layer's job: the engine's policy.c only parses the string. */
#include "config.h"

#include <stdio.h>

#include "conf.h"
#include "policy.h"

struct load_arg {
	gp_policy_t policy;
};

static int sched_line(void *arg, const gp__conf_line_t *line, gp_error_t *err)
{
	struct load_arg *la = arg;
	char source[GP_PATH_MAX + 64];
	int i;

	for (i = 0; i < line->n; i++) {
		if (!gp__conf_is(&line->kv[i], "SchedulerParameters"))
			continue;
		snprintf(source, sizeof(source), "%s:%d: SchedulerParameters", line->loc.path,
		         line->loc.line);
		if (gp__policy_parse(line->kv[i].val, source, &la->policy, err))
			return GP_ECONFIG;
	}
	return GP_OK;
}

int gp__policy_load(const char *dir, const gp_cluster_t *c, gp_policy_t *p, gp_error_t *err)
{
	gp__conf_paths_t paths = { 0 };
	struct load_arg la;
	int rc;

	if (!dir || !p)
		return gp__errorf(err, GP_EINVAL, "policy: no directory or policy");
	gp__policy_default(c, &la.policy);
	rc = gp__conf_read_slurm(&paths, dir, "slurm.conf", false, NULL, sched_line, &la, err);
	gp__conf_paths_free(&paths);
	if (rc != GP_OK)
		return rc;
	*p = la.policy;
	return GP_OK;
}
