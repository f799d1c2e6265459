/* SPDX-License-Identifier: GPL-2.0-or-later */
/* plugin_job.c - job descriptions as slurmctld unpacks them, and the
 * removal of a site directory (plugin_job.h) */
#include "config.h"

#include <stdio.h>
#include <unistd.h>

#include "plugin_job.h"
#include "slurm_alloc.h"

job_desc_msg_t *gp_test_job_new(const char *per_job, const char *per_node)
{
	job_desc_msg_t *j = slurm_xcalloc(1, sizeof(*j), true, false, __FILE__, __LINE__, __func__);

	slurm_init_job_desc_msg(j);
	if (per_job)
		j->tres_per_job = slurm_xstrdup(per_job);
	if (per_node)
		j->tres_per_node = slurm_xstrdup(per_node);
	return j;
}

char **gp_test_xarray(const char *const *vars, int n, uint32_t *count)
{
	char **a;
	uint32_t i, len = 0;

	if (n >= 0)
		len = (uint32_t)n;
	else
		while (vars && vars[len])
			len++;
	a = slurm_xcalloc(len + 1, sizeof(char *), true, false, __FILE__, __LINE__, __func__);
	for (i = 0; i < len; i++)
		a[i] = vars[i] ? slurm_xstrdup(vars[i]) : NULL;
	*count = len;
	return a;
}

static void xarray_free(char ***a, uint32_t n)
{
	uint32_t i;

	for (i = 0; *a && i < n; i++)
		slurm_xfree((void **)&(*a)[i]);
	slurm_xfree((void **)a);
}

void gp_test_job_free(job_desc_msg_t *j)
{
	if (!j)
		return;
	xarray_free(&j->environment, j->env_size);
	xarray_free(&j->spank_job_env, j->spank_job_env_size);
	slurm_xfree((void **)&j->tres_per_job);
	slurm_xfree((void **)&j->tres_per_node);
	slurm_xfree((void **)&j->tres_per_task);
	slurm_xfree((void **)&j->tres_per_socket);
	slurm_xfree((void **)&j->cpus_per_tres);
	slurm_xfree((void **)&j->mem_per_tres);
	slurm_xfree((void **)&j->job_id_str);
	slurm_xfree((void **)&j->req_nodes);
	slurm_xfree((void **)&j->exc_nodes);
	slurm_xfree((void **)&j->features);
	slurm_xfree((void **)&j->admin_comment);
	slurm_xfree((void **)&j->comment);
	slurm_xfree((void **)&j->name);
	slurm_xfree((void **)&j->licenses);
	slurm_xfree((void **)&j->array_inx);
	slurm_xfree((void **)&j->reservation);
	slurm_xfree((void **)&j->partition);
	slurm_xfree((void **)&j);
}

void gp_test_dir_remove(const char *dir, const char *const *files, size_t n)
{
	char path[4200];
	size_t i;

	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, files[i]);
		unlink(path);
	}
	rmdir(dir);
}

int gp_test_copy_file(const char *from, const char *to, const char *extra)
{
	FILE *in = fopen(from, "r"), *out = in ? fopen(to, "w") : NULL;
	char buf[4096];
	size_t n;
	int rc = 0;

	if (!in || !out)
		rc = -1;
	while (!rc && (n = fread(buf, 1, sizeof(buf), in)) > 0)
		if (fwrite(buf, 1, n, out) != n)
			rc = -1;
	if (!rc && extra && fputs(extra, out) < 0)
		rc = -1;
	if (in)
		fclose(in);
	if (out && fclose(out))
		rc = -1;
	return rc;
}
