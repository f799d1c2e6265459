/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dlcheck.c - load a plugin the way slurmctld would, but with RTLD_NOW:
 * first the library slurmctld resolves plugin symbols from
 * (libslurmfull.so), then the plugin.  Slurm itself loads plugins lazily, so
 * a misspelled Slurm symbol would only fail at its first call, inside
 * slurmctld; here it fails the test.  Prints TAP.
 *   dlcheck LIBSLURMFULL PLUGIN.so [SYMBOL...]
 */
#include "config.h"

#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	void *full, *plugin;
	int i, failed = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: dlcheck LIBSLURMFULL PLUGIN.so [SYMBOL...]\n");
		return 2;
	}
	printf("1..%d\n", 2 + (argc - 3));
	full = dlopen(argv[1], RTLD_NOW | RTLD_GLOBAL);
	if (!full) {
		printf("not ok 1 - dlopen %s: %s\n", argv[1], dlerror());
		return 1;
	}
	printf("ok 1 - %s loaded\n", argv[1]);
	plugin = dlopen(argv[2], RTLD_NOW | RTLD_LOCAL);
	if (!plugin) {
		printf("not ok 2 - every symbol of %s resolves: %s\n", argv[2], dlerror());
		return 1;
	}
	printf("ok 2 - every symbol of %s resolves against %s (RTLD_NOW)\n", argv[2], argv[1]);
	for (i = 3; i < argc; i++) {
		if (dlsym(plugin, argv[i])) {
			printf("ok %d - exports %s\n", i, argv[i]);
		} else {
			printf("not ok %d - exports %s\n", i, argv[i]);
			failed = 1;
		}
	}
	return failed;
}
