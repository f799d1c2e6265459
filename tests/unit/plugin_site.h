/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * plugin_site.h - sites for the programs that run the plugin's real
 * job_submit() without a daemon (tests/unit/test_plugin_submit.c,
 * tests/fuzz/fuzz_job_submit.c): a copy of an example site with edits,
 * and a site loaded by init() with the cluster state the plugin's thread
 * would read from slurmctld published as an idle cluster read just now.
 */
#ifndef GP_TEST_PLUGIN_SITE_H
#define GP_TEST_PLUGIN_SITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* resources.yaml as a site writes it for etc/mixed-pcie's nodes
 * (resources.yaml(5)): the budget a PowerHres=rackpower copy reads */
#define GP_TEST_RESOURCES_OK                                                \
	"---\n- resource: rackpower\n  mode: MODE_3\n  layers:\n"        \
	"    - nodes:\n        - \"a100n[01-08],l40s[01-04],cpu[01-02]\"\n" \
	"      count: -1\n"                                                 \
	"    - nodes:\n        - \"a100n[01-04]\"\n      count: 5000\n"     \
	"    - nodes:\n        - \"a100n[05-08]\"\n      count: 5000\n"     \
	"    - nodes:\n        - \"l40s[01-04],cpu[01-02]\"\n      count: 4000\n"

/* dir (len bytes) = a new $TMPDIR/gp-TAG.XXXXXX holding etc/mixed-pcie's
 * files: slurm.conf with the n strings a[k] replaced by b[k] (n 0: as it
 * is), gpuplace.conf with extra appended (NULL: nothing).  0 or -1. */
int gp_test_site_copy(char *dir, size_t len, const char *tag, const char *extra,
                      const char *const *a, const char *const *b, int n);

/* The files gp_test_site_copy() writes (resources.yaml too), then dir. */
void gp_test_site_remove(const char *dir);

/* Write text to dir/resources.yaml (NULL: remove it).  0 or -1. */
int gp_test_site_resources(const char *dir, const char *text);

/* init() on the site in directory dir (GPUPLACE_CONF_DIR), then the idle
 * cluster published as the plugin's thread would publish slurmctld's
 * state read now, and the engine built: hres, whether slurmctld has the
 * PowerHres license; lic, whether it has every rack's PowerLicenses
 * license, all free but rack lic_full's (-1: none full).  0, or -1 when
 * the site does not load. */
int gp_test_site_load(const char *dir, bool hres, bool lic, int lic_full);

/* Publish the loaded site's state again, as the plugin's thread would: hres,
 * lic and lic_full as above; busy 0 every node up and idle, else the
 * occupancy it seeds, the same for the same seed: busy's low byte of every
 * 256 nodes run a job (of one to all of their GPUs, on one to four nodes,
 * ending within a day or past its expected end), one in 64 is down or
 * drained, and half the racks have a measured draw.  0 or -1. */
int gp_test_site_publish(bool hres, bool lic, int lic_full, uint64_t busy);

#endif
