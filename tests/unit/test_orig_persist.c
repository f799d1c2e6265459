/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * test_orig_persist.c - the plugin's originals file (steer_pass.c,
 * origs_restore / origs_persist) in StateSaveLocation: what init() reads
 * back is written again as it was read, lines it cannot read (a last
 * line cut short too) are logged with file, line, key and value and left
 * out, an update does not touch an original no reading has confirmed, new
 * references come after the restored ones, a directory it cannot write
 * to is logged once; a decision's original is in the file's journal at
 * once, read back after the file (a record there replaces the file's; a
 * journal older than the file is not read).  The program looks like slurmctld to the
 * plugin (slurmctld_config, libslurm's slurm_conf.state_save_location);
 * its log lines are captured (GP_LOG_SINK=capture, log_capture.c).
 */
#include "config.h"

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <errno.h>
#include <fcntl.h>

#include "job_submit_gpuplace.h"
#include "log_capture.h"

#include <cmocka.h>

int slurmctld_config;
extern slurm_conf_t slurm_conf;

static char dir[64];
static char path[128];
static char jpath[160];
static char lpath[160];

/* unlink() as the plugin's code calls it (linked with --wrap=unlink):
 * with fail_journal_unlink, the journal cannot be removed (as one whose
 * file system or attributes refuse it while its directory takes a rename) */
static bool fail_journal_unlink;
int __real_unlink(const char *p);
int __wrap_unlink(const char *p);
int __wrap_unlink(const char *p)
{
	if (fail_journal_unlink && p && strstr(p, ".journal")) {
		errno = EPERM;
		return -1;
	}
	return __real_unlink(p);
}

/* fopen() as the plugin's code calls it (linked with --wrap=fopen): the
 * files opened while dec.lock, which submissions take, is held */
static int fopen_locked;
FILE *__real_fopen(const char *p, const char *mode);
FILE *__wrap_fopen(const char *p, const char *mode);
FILE *__wrap_fopen(const char *p, const char *mode)
{
	if (pthread_mutex_trylock(&dec.lock) == 0)
		pthread_mutex_unlock(&dec.lock);
	else
		fopen_locked++;
	return __real_fopen(p, mode);
}

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/gp-orig-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/gpuplace_originals", dir);
	snprintf(jpath, sizeof(jpath), "%s/gpuplace_originals.journal", dir);
	snprintf(lpath, sizeof(lpath), "%s/gpuplace_originals.lock", dir);
	slurm_conf.state_save_location = dir;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	fail_journal_unlink = false;
	origs_clear();
	log_clear();
	unlink(path);
	unlink(jpath);
	unlink(lpath);
	rmdir(dir);
	slurm_conf.state_save_location = NULL;
	return 0;
}

static void put_at(const char *file, const char *text)
{
	FILE *f = fopen(file, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void put(const char *text)
{
	put_at(path, text);
}

/* The whole of file, malloc'd ("" when it is not there). */
static char *slurp(const char *file)
{
	FILE *f = fopen(file, "r");
	char *out = calloc(1, 1), buf[4096];
	size_t n = 0, got;

	if (!f)
		return out;
	while ((got = fread(buf, 1, sizeof(buf), f)) > 0) {
		out = realloc(out, n + got + 1);
		memcpy(out + n, buf, got);
		n += got;
		out[n] = '\0';
	}
	fclose(f);
	return out;
}

/* The file's lines that are records ("gpuplace-orig ..."), joined. */
static char *records(void)
{
	FILE *f = fopen(path, "r");
	char *out = calloc(1, 1), line[4096];
	size_t n = 0;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "gpuplace-orig ", 14))
			continue;
		out = realloc(out, n + strlen(line) + 1);
		memcpy(out + n, line, strlen(line) + 1);
		n += strlen(line);
	}
	fclose(f);
	return out;
}

/* The file's records are exactly want. */
static void records_are(const char *want)
{
	char *got = records();

	assert_string_equal(got, want);
	free(got);
}

/* The journal was logged as following generation 3 of the file at 4. */
static void logged_journal_older(void)
{
	char want[512];

	snprintf(want, sizeof(want), "%s follows generation 3 of gpuplace_originals, which is at 4 "
	         "and holds its lines: not read", jpath);
	assert_int_equal(log_matches(want), 1);
}

#define GOOD1 "gpuplace-orig ref=1764400000000001 job=17 kept=0 lic=1 sw=0 counts=1 gpus=1 " \
	"frozen=0 pinned=1 every_refresh=0 moved=0 decided=1764400000 updated=0 " \
	"checked=1764400000 wait=0 uid=1000 min_nodes=4294967294 max_nodes=4294967294 " \
	"time_limit=60 num_tasks=4294967294 shared=65534 ntasks_per_node=65534 " \
	"cpus_per_task=65534 pn_min_cpus=65534 pn_min_memory=18446744073709551614 " \
	"hints=tp=8 tres_per_job=gres/gpu:8 partition=gpu features=[a|b] " \
	"licenses= name=my%20job\n"
#define GOOD2 "gpuplace-orig ref=1764400000000002 job=0 kept=1 lic=0 sw=1 counts=0 gpus=0 " \
	"frozen=1 pinned=0 every_refresh=1 moved=1 decided=1764400001 updated=1764400031 " \
	"checked=1764400002 wait=123.5 uid=0 min_nodes=2 max_nodes=0 time_limit=4294967294 " \
	"num_tasks=16 shared=0 ntasks_per_node=8 cpus_per_task=1 pn_min_cpus=1 " \
	"pn_min_memory=9223372036854776832 req_nodes=n[1-2] exc_nodes=n3\n"

/* read back and written again as read; lines it cannot read left out,
 * each logged with file, line number, key and value */
static void test_restore_then_write(void **state)
{
	char want[4096];

	(void)state;
	put("# a comment\n" GOOD1
	    "gpuplace-orig ref=5 colour=blue\n"
	    "\n"
	    GOOD2
	    GOOD2
	    "gpuplace-orig ref=6 features=a%G1\n");
	origs_restore();
	assert_int_equal(log_matches("restored the originals of 2 jobs from"), 1);
	snprintf(want, sizeof(want), "%s:3: key 'colour' value 'blue': unknown key; line skipped",
	         path);
	assert_int_equal(log_matches(want), 1);
	snprintf(want, sizeof(want), "%s:7: key 'features' value 'a%%G1': a bad %%XX escape", path);
	assert_int_equal(log_matches(want), 1);
	/* skipped lines: the file is due again, without them */
	origs_persist();
	records_are(GOOD1 GOOD2);
	/* nothing changed since: not written again */
	unlink(path);
	origs_persist();
	assert_int_not_equal(access(path, F_OK), 0);
}

/* read back, an original is not its job's until a reading shows the job
 * pending: an update then changes nothing of it (job_modify gives back
 * nothing yet either); a new original is written beside it */
static void test_change_written(void **state)
{
	job_desc_msg_t u;
	char *got;

	(void)state;
	put(GOOD1);
	origs_restore();
	slurm_init_job_desc_msg(&u);
	u.features = (char *)"c";
	orig_freeze(17, &u);
	unlink(path);
	origs_persist();
	assert_int_not_equal(access(path, F_OK), 0); /* nothing changed */
	pthread_mutex_lock(&dec.lock);
	orig_save(&u, dec.ref_base + 1, "tp=2", 0.0, 1001, false, false);
	pthread_mutex_unlock(&dec.lock);
	origs_persist();
	got = records();
	assert_true(strncmp(got, GOOD1, strlen(GOOD1)) == 0);
	assert_non_null(strstr(got + strlen(GOOD1), " hints=tp=2 "));
	assert_non_null(strstr(got + strlen(GOOD1), " features=c\n"));
	free(got);
}

/* a last line cut short is left out; new references come after the
 * restored ones */
static void test_cut_and_refs(void **state)
{
	char want[256];
	size_t n = strlen(GOOD2);
	char cut[2048];

	(void)state;
	memcpy(cut, GOOD2, n - 1); /* without its newline */
	cut[n - 1] = '\0';
	put(GOOD1);
	{
		FILE *f = fopen(path, "a");

		assert_non_null(f);
		fputs(cut, f);
		fclose(f);
	}
	dec.ref_base = 5;
	origs_restore();
	assert_int_equal(log_matches("restored the originals of 1 jobs"), 1);
	snprintf(want, sizeof(want), "%s:2: the line ends without a newline", path);
	assert_int_equal(log_matches(want), 1);
	assert_true(dec.ref_base >= 1764400000000001ULL);
}

/* a backup's takeover: what it read at its start goes, the file as the
 * primary last wrote it comes back, and a job submitted to it meanwhile
 * keeps its original */
static void test_takeover(void **state)
{
	job_desc_msg_t u;
	char *got;

	(void)state;
	put(GOOD1);
	origs_restore();          /* the backup's start */
	put(GOOD1 GOOD2);         /* the primary went on */
	slurm_init_job_desc_msg(&u);
	pthread_mutex_lock(&dec.lock);
	orig_save(&u, 1764400000000100ULL, "tp=4", 0.0, 7, false, false);
	pthread_mutex_unlock(&dec.lock);
	origs_takeover();
	origs_persist();
	got = records();
	/* the new one (oldest first: it was kept), then the file's two, once */
	assert_non_null(strstr(got, " hints=tp=4\n"));
	assert_non_null(strstr(got, GOOD1 GOOD2));
	assert_null(strstr(strstr(got, GOOD1) + strlen(GOOD1), "ref=1764400000000001 "));
	free(got);
}

/* no file (a first start): nothing restored, nothing said */
static void test_no_file(void **state)
{
	(void)state;
	origs_restore();
	assert_int_equal(ncaptured, 0);
	origs_persist();
	assert_int_not_equal(access(path, F_OK), 0); /* nothing to write */
}

/* a directory it cannot write to: logged once, tried again */
static void test_unwritable(void **state)
{
	job_desc_msg_t j;
	char want[256];

	(void)state;
	slurm_conf.state_save_location = (char *)"/nonexistent/gpuplace";
	origs_restore(); /* no file there: nothing restored */
	slurm_init_job_desc_msg(&j);
	pthread_mutex_lock(&dec.lock);
	orig_save(&j, 42, NULL, 0.0, 0, false, false);
	pthread_mutex_unlock(&dec.lock);
	origs_journal();
	origs_persist();
	origs_persist();
	assert_int_equal(log_matches("cannot write /nonexistent/gpuplace/gpuplace_originals"), 1);
	assert_int_equal(log_matches("cannot append to /nonexistent/gpuplace/gpuplace_originals"
	                             ".journal: No such file or directory"), 1);
	pthread_mutex_lock(&dec.lock);
	orig_save(&j, 43, NULL, 0.0, 0, false, false);
	pthread_mutex_unlock(&dec.lock);
	origs_journal();
	assert_int_equal(log_matches("cannot append to"), 1); /* once per error */
	/* writable again (the next start): written, and said so */
	slurm_conf.state_save_location = dir;
	origs_restore();
	origs_persist();
	assert_int_equal(access(path, F_OK), 0);
	snprintf(want, sizeof(want), "wrote %s again", path);
	assert_int_equal(log_matches(want), 1);
}

/* GOOD1 as an update froze it */
#define GOOD1_FROZEN "gpuplace-orig ref=1764400000000001 job=17 kept=0 lic=1 sw=0 counts=1 " \
	"gpus=1 frozen=1 pinned=1 every_refresh=0 moved=0 decided=1764400000 updated=0 " \
	"checked=1764400000 wait=0 uid=1000 min_nodes=4294967294 max_nodes=4294967294 " \
	"time_limit=60 num_tasks=4294967294 shared=65534 ntasks_per_node=65534 " \
	"cpus_per_task=65534 pn_min_cpus=65534 pn_min_memory=18446744073709551614 " \
	"hints=tp=8 tres_per_job=gres/gpu:8 partition=gpu features=[a|b] " \
	"licenses= name=my%20job\n"

/* a decision's original is in the journal at once, before any write of
 * the file: a slurmctld stopped then reads it back; the next write of the
 * file holds it and removes the journal, and the journal after it names
 * the file's new generation */
static void test_journal_read_back(void **state)
{
	job_desc_msg_t j;
	char *got, want[512];

	(void)state;
	origs_restore(); /* a first start: no file, generation 0 */
	slurm_init_job_desc_msg(&j);
	j.features = (char *)"gpleaf_s1";
	pthread_mutex_lock(&dec.lock);
	orig_save(&j, 1764400000000009ULL, "tp=2", 0.0, 1001, false, false);
	pthread_mutex_unlock(&dec.lock);
	origs_journal();
	assert_int_not_equal(access(path, F_OK), 0); /* no write of the file yet */
	got = slurp(jpath);
	assert_true(strncmp(got, "# generation 0\ngpuplace-orig ref=1764400000000009 ", 50) == 0);
	assert_non_null(strstr(got, " features=gpleaf_s1\n"));
	free(got);
	origs_journal(); /* nothing new: nothing appended */
	got = slurp(jpath);
	assert_null(strstr(strstr(got, "ref=1764400000000009") + 1, "ref=1764400000000009"));
	free(got);
	/* slurmctld stops (no fini) and starts again */
	origs_clear();
	log_clear();
	origs_restore();
	snprintf(want, sizeof(want), "restored the originals of 1 jobs from %s and its journal "
	         "(1 lines)", path);
	assert_int_equal(log_matches(want), 1);
	origs_persist();
	got = records();
	assert_non_null(strstr(got, "ref=1764400000000009 "));
	assert_non_null(strstr(got, " features=gpleaf_s1\n"));
	free(got);
	assert_int_not_equal(access(jpath, F_OK), 0); /* the file holds its lines */
	got = slurp(path);
	assert_non_null(strstr(got, "\n# generation 1\n"));
	free(got);
	pthread_mutex_lock(&dec.lock);
	orig_save(&j, 1764400000000010ULL, NULL, 0.0, 1001, false, false);
	pthread_mutex_unlock(&dec.lock);
	origs_journal();
	got = slurp(jpath);
	assert_true(strncmp(got, "# generation 1\ngpuplace-orig ref=1764400000000010 ", 50) == 0);
	free(got);
}

/* a record of the journal replaces the file's of its reference (it
 * changed later); a journal older than the file (left by a crash before
 * its removal reached the disk) is not read, and removed once this
 * slurmctld has taken control; a cut last line is skipped */
static void test_journal_replaces(void **state)
{
	char want[2048];
	char cut[2048];
	size_t n = strlen(GOOD2);

	(void)state;
	put("# generation 3\n" GOOD1);
	memcpy(cut, GOOD2, n - 1);
	cut[n - 1] = '\0';
	snprintf(want, sizeof(want), "# generation 3\n%s%s", GOOD1_FROZEN, cut);
	put_at(jpath, want);
	origs_restore();
	snprintf(want, sizeof(want), "%s:3: the line ends without a newline", jpath);
	assert_int_equal(log_matches(want), 1);
	origs_persist();
	records_are(GOOD1_FROZEN);
	origs_clear();
	log_clear();
	put("# generation 4\n" GOOD1);
	put_at(jpath, "# generation 3\n" GOOD2);
	origs_restore();
	logged_journal_older();
	/* a start only reads it (another slurmctld may still own the
	 * files); it goes once this one has taken control */
	assert_int_equal(access(jpath, F_OK), 0);
	origs_takeover();
	assert_int_not_equal(access(jpath, F_OK), 0);
	origs_persist();
	records_are(GOOD1);
	assert_int_not_equal(access(jpath, F_OK), 0);
}

/* a journal whose last line was cut short (a slurmctld killed in a
 * write): the next append starts a line of its own, and both starts
 * after it read the new record */
static void test_journal_after_cut(void **state)
{
	job_desc_msg_t j;
	char *got, want[2048];
	size_t n = strlen(GOOD2);

	(void)state;
	snprintf(want, sizeof(want), "# generation 0\n%.*s", (int)(n - 12), GOOD2);
	put_at(jpath, want);
	origs_restore();
	slurm_init_job_desc_msg(&j);
	pthread_mutex_lock(&dec.lock);
	orig_save(&j, 1764400000000020ULL, "tp=4", 0.0, 5, false, false);
	pthread_mutex_unlock(&dec.lock);
	origs_journal();
	origs_clear();
	log_clear();
	origs_restore();
	snprintf(want, sizeof(want), "%s:2: the line ends without a newline", jpath);
	assert_int_equal(log_matches(want), 0); /* it ends with one now */
	snprintf(want, sizeof(want), "%s:2: ", jpath);
	assert_int_equal(log_matches(want), 1); /* the cut record, skipped */
	origs_persist();
	got = records();
	assert_non_null(strstr(got, "ref=1764400000000020 "));
	free(got);
}

/* a file that cannot be read: its journal is read whole (whatever
 * generation it names), kept, and nothing is written over the file
 * before a change */
static void test_journal_unread_file(void **state)
{
	char want[512];

	(void)state;
	assert_int_equal(symlink(path, path), 0); /* ELOOP */
	put_at(jpath, "# generation 5\n" GOOD2);
	origs_restore();
	snprintf(want, sizeof(want), "cannot read %s: Too many levels of symbolic links", path);
	assert_int_equal(log_matches(want), 1);
	assert_int_equal(log_matches("and its journal (1 lines)"), 1);
	assert_int_equal(access(jpath, F_OK), 0);
	origs_persist(); /* nothing changed: the link stays */
	{
		struct stat sb;

		assert_int_equal(lstat(path, &sb), 0);
		assert_true(S_ISLNK(sb.st_mode));
	}
	unlink(path);
}

/* an append that failed (the journal's name taken by a directory) is
 * made again once it can be */
static void test_journal_retried(void **state)
{
	job_desc_msg_t j;
	char *got, want[512];

	(void)state;
	origs_restore();
	assert_int_equal(mkdir(jpath, 0700), 0);
	slurm_init_job_desc_msg(&j);
	pthread_mutex_lock(&dec.lock);
	orig_save(&j, 1764400000000030ULL, NULL, 0.0, 5, false, false);
	pthread_mutex_unlock(&dec.lock);
	origs_journal();
	snprintf(want, sizeof(want), "cannot append to %s: Is a directory", jpath);
	assert_int_equal(log_matches(want), 1);
	assert_int_equal(rmdir(jpath), 0);
	origs_journal();
	got = slurp(jpath);
	assert_non_null(strstr(got, "ref=1764400000000030 "));
	free(got);
	snprintf(want, sizeof(want), "appended to %s again", jpath);
	assert_int_equal(log_matches(want), 1);
}

/* A journal with a section older than the file, then one that follows
 * it (the file's last write could not remove the journal): the older
 * section's lines are not read, the newer one's are, and the journal is
 * not removed at the start (the next write of the file holds its lines
 * and removes it). */
static void test_journal_sections(void **state)
{
	char want[4096];

	(void)state;
	put("# generation 4\n" GOOD1);
	snprintf(want, sizeof(want), "# generation 3\n%s# generation 4\n%s", GOOD2, GOOD1_FROZEN);
	put_at(jpath, want);
	origs_restore();
	logged_journal_older();
	assert_int_equal(access(jpath, F_OK), 0);
	origs_persist();
	records_are(GOOD1_FROZEN);
	assert_int_not_equal(access(jpath, F_OK), 0);
}

/* The file's write cannot remove the journal: the decisions after it go
 * into a section of the journal naming the file's new generation, and a
 * start after that reads them (without the section they followed the
 * older generation, and a start skipped them with the rest). */
static void test_journal_not_removed(void **state)
{
	job_desc_msg_t j;
	char *got, want[512];

	(void)state;
	origs_restore(); /* a first start: no file, generation 0 */
	slurm_init_job_desc_msg(&j);
	j.features = (char *)"gpleaf_s1";
	pthread_mutex_lock(&dec.lock);
	orig_save(&j, 1764400000000021ULL, NULL, 0.0, 1001, false, false);
	pthread_mutex_unlock(&dec.lock);
	origs_journal();
	fail_journal_unlink = true;
	origs_persist(); /* generation 1; the journal stays */
	snprintf(want, sizeof(want), "cannot remove %s: %s; its next lines follow generation 1",
	         jpath, strerror(EPERM));
	assert_int_equal(log_matches(want), 1);
	assert_int_equal(access(jpath, F_OK), 0);
	pthread_mutex_lock(&dec.lock);
	orig_save(&j, 1764400000000022ULL, NULL, 0.0, 1002, false, false);
	pthread_mutex_unlock(&dec.lock);
	origs_journal();
	got = slurp(jpath);
	assert_non_null(strstr(got, "\n# generation 1\ngpuplace-orig ref=1764400000000022 "));
	free(got);
	/* slurmctld stops before the next write, and starts again */
	fail_journal_unlink = false;
	origs_clear();
	log_clear();
	origs_restore();
	origs_persist();
	got = records();
	assert_non_null(strstr(got, "ref=1764400000000021 "));
	assert_non_null(strstr(got, "ref=1764400000000022 "));
	free(got);
}

/* One record line: GOOD1's fields with this reference and uid. */
static void rec_line(char *buf, size_t len, uint64_t ref, unsigned uid)
{
	snprintf(buf, len, "gpuplace-orig ref=%llu job=0 kept=0 lic=0 sw=0 counts=1 gpus=1 "
	         "frozen=0 pinned=1 every_refresh=0 moved=0 decided=1764400000 updated=0 "
	         "checked=1764400000 wait=0 uid=%u min_nodes=4294967294 max_nodes=4294967294 "
	         "time_limit=60 num_tasks=4294967294 shared=65534 ntasks_per_node=65534 "
	         "cpus_per_task=65534 pn_min_cpus=65534 pn_min_memory=18446744073709551614 "
	         "tres_per_job=gres/gpu:8\n", (unsigned long long)ref, uid);
}

/* The uid of ref's record in the file's records text, -1 for none. */
static long uid_of(const char *recs, uint64_t ref)
{
	char key[64];
	const char *at, *u;

	snprintf(key, sizeof(key), "gpuplace-orig ref=%llu ", (unsigned long long)ref);
	if (!(at = strstr(recs, key)) || !(u = strstr(at, " uid=")))
		return -1;
	return strtol(u + 5, NULL, 10);
}

/* A long journal over a full table: 9,998 placed originals in the file,
 * 30,000 journal records that change them (the last of each reference
 * wins), then 4 new ones (the 2 oldest go: the table keeps
 * GP_LEDGER_MAX of them), then changes of an original whose place the
 * drops moved and of a new one: each lands on its own reference. */
static void test_journal_many(void **state)
{
	enum { FILE_N = GP_LEDGER_MAX - 2, JOURNAL_N = 30000 };
	const uint64_t base = 1764400000100000ULL;
	static long last[FILE_N + 1];
	char line[1024], *got;
	FILE *f;
	int i, n = 0;

	(void)state;
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("# generation 5\n", f);
	for (i = 1; i <= FILE_N; i++) {
		rec_line(line, sizeof(line), base + (uint64_t)i, 0);
		fputs(line, f);
		last[i] = 0;
	}
	fclose(f);
	f = fopen(jpath, "w");
	assert_non_null(f);
	fputs("# generation 5\n", f);
	for (i = 0; i < JOURNAL_N; i++) {
		int k = 1 + (int)(((long)i * 7919) % FILE_N);

		rec_line(line, sizeof(line), base + (uint64_t)k, (unsigned)i + 1);
		fputs(line, f);
		last[k] = i + 1;
	}
	for (i = 1; i <= 4; i++) {
		rec_line(line, sizeof(line), base + 20000 + (uint64_t)i, 500000 + (unsigned)i);
		fputs(line, f);
	}
	rec_line(line, sizeof(line), base + 3, 777777);
	fputs(line, f);
	rec_line(line, sizeof(line), base + 20004, 888888);
	fputs(line, f);
	fclose(f);
	origs_restore();
	origs_persist();
	got = records();
	for (i = 0; got[i]; i++)
		n += got[i] == '\n';
	assert_int_equal(n, GP_LEDGER_MAX);
	assert_int_equal(uid_of(got, base + 1), -1); /* the two oldest went */
	assert_int_equal(uid_of(got, base + 2), -1);
	assert_int_equal(uid_of(got, base + 3), 777777);
	assert_true(strncmp(got, "gpuplace-orig ref=1764400000100003 ", 35) == 0);
	for (i = 4; i <= FILE_N; i += 97)
		assert_int_equal(uid_of(got, base + (uint64_t)i), last[i]);
	assert_int_equal(uid_of(got, base + 20001), 500001);
	assert_int_equal(uid_of(got, base + 20004), 888888);
	assert_non_null(strstr(got, "gpuplace-orig ref=1764400000120004 "));
	free(got);
}

/* An original saved now (a decision), under reference ref. */
static void save_one(uint64_t ref, const char *hints)
{
	job_desc_msg_t j;

	slurm_init_job_desc_msg(&j);
	pthread_mutex_lock(&dec.lock);
	orig_save(&j, ref, hints, 0.0, 7, false, false);
	pthread_mutex_unlock(&dec.lock);
}

/* Another slurmctld took control (a reconfigure's new process, or a
 * backup): this one writes neither the journal nor the file from then
 * on, and says so once; what it had written before stays. */
static void test_superseded(void **state)
{
	char *before, *after;

	(void)state;
	origs_restore();  /* this one's start (init) */
	origs_takeover(); /* and its control: it names itself in the lock */
	before = slurp(lpath);
	assert_non_null(strstr(before, "gpuplace-owner host="));
	free(before);
	save_one(1764400000000201ULL, "tp=2");
	origs_journal();
	before = slurp(jpath);
	assert_non_null(strstr(before, " hints=tp=2\n"));
	put_at(lpath, "gpuplace-owner host=other pid=1 start=1.000000001\n");
	save_one(1764400000000202ULL, "tp=4");
	origs_journal();
	origs_persist();
	origs_journal();
	origs_persist();
	after = slurp(jpath);
	assert_string_equal(after, before);
	assert_int_not_equal(access(path, F_OK), 0);
	assert_int_equal(log_matches("another slurmctld has taken control of the originals "
	                             "(gpuplace_originals.lock: gpuplace-owner host=other pid=1 "
	                             "start=1.000000001); this one writes them no more"), 1);
	free(before);
	free(after);
	/* taking control again makes it the writer */
	origs_takeover();
	origs_persist();
	assert_non_null(strstr((after = records()), " hints=tp=4\n"));
	free(after);
}

/* The slurmctld before (a reconfigure's old process) is writing the file
 * when this one takes control: the takeover reads the file that write
 * left, not the one before it (read without the lock: 1 job, not 2). */
static void test_takeover_waits_for_write(void **state)
{
	int p[2], status, fd;
	pid_t pid;
	char c;

	(void)state;
	put(GOOD1);
	origs_restore(); /* this one's start */
	assert_int_equal(pipe(p), 0);
	if ((pid = fork()) == 0) {
		char tmp[200];

		fd = open(lpath, O_RDWR | O_CREAT, 0600);
		if (fd < 0 || flock(fd, LOCK_EX))
			_exit(1);
		if (write(p[1], "1", 1) != 1)
			_exit(1);
		usleep(300 * 1000);
		snprintf(tmp, sizeof(tmp), "%s.new", path);
		put_at(tmp, GOOD1 GOOD2);
		_exit(rename(tmp, path) ? 1 : 0);
	}
	assert_true(pid > 0);
	assert_int_equal(read(p[0], &c, 1), 1);
	log_clear();
	origs_takeover();
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(log_matches("restored the originals of 2 jobs"), 1);
	close(p[0]);
	close(p[1]);
}

/* Another process holds the lock for ms (and checks that the file was
 * not written meanwhile: exit 1 if it was); its pid, once it holds it. */
static pid_t hold_lock(int ms)
{
	int p[2];
	pid_t pid;
	char c;

	assert_int_equal(pipe(p), 0);
	if ((pid = fork()) == 0) {
		char *before, *after;
		int fd = open(lpath, O_RDWR | O_CREAT, 0600), same;

		if (fd < 0 || flock(fd, LOCK_EX))
			_exit(2);
		before = slurp(path);
		if (write(p[1], "1", 1) != 1)
			_exit(2);
		usleep((useconds_t)ms * 1000);
		after = slurp(path);
		same = !strcmp(before, after);
		_exit(same ? 0 : 1);
	}
	assert_true(pid > 0);
	assert_int_equal(read(p[0], &c, 1), 1);
	close(p[0]);
	close(p[1]);
	return pid;
}

static int exit_of(pid_t pid)
{
	int status;

	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

/* A write waits for the lock another process holds: the file is not
 * touched before that process lets it go, and is written after. */
static void test_write_waits_for_lock(void **state)
{
	char *got;
	pid_t pid;

	(void)state;
	origs_restore();
	origs_takeover();
	save_one(1764400000000301ULL, "tp=3");
	pid = hold_lock(300);
	origs_persist();
	assert_int_equal(exit_of(pid), 0);
	assert_non_null(strstr((got = records()), " hints=tp=3\n"));
	free(got);
}

/* The slurmctld named in the lock, on this host, has ended (a
 * reconfigure's new process that took control and failed): this one
 * writes nothing until it has taken the originals over again, reading
 * back the file the ended one wrote (its generation too: this one's next
 * write follows it); a live one named is not taken for ended. */
static void test_owner_ended(void **state)
{
	char host[256] = "", line[400], *got;
	pid_t pid;

	(void)state;
	origs_restore();
	origs_takeover();
	save_one(1764400000000401ULL, "tp=5");
	origs_persist();
	/* the new one read that, wrote its own file, and ended */
	if ((pid = fork()) == 0)
		_exit(0);
	assert_true(pid > 0);
	assert_int_equal(exit_of(pid), 0);
	gethostname(host, sizeof(host) - 1);
	snprintf(line, sizeof(line), "gpuplace-owner host=%s pid=%ld start=1 boot=-\n", host,
	         (long)pid);
	put_at(lpath, line);
	put("# generation 7\n" GOOD2);
	save_one(1764400000000402ULL, "tp=6");
	origs_journal();
	origs_persist();
	assert_int_not_equal(access(jpath, F_OK), 0);
	assert_int_equal(log_matches("has ended"), 1);
	assert_int_equal(log_matches("writes them no more"), 0);
	/* the plugin's thread takes them over (origs_resume_due) */
	assert_true(origs_resume_due());
	origs_takeover();
	assert_false(origs_resume_due());
	origs_persist();
	got = slurp(path);
	assert_non_null(strstr(got, "# generation 8\n"));
	assert_non_null(strstr(got, GOOD2));
	assert_non_null(strstr(got, " hints=tp=6\n"));
	free(got);
	got = slurp(lpath);
	assert_null(strstr(got, line));
	free(got);
	/* one named that runs, with the start it has: alive */
	assert_true(orig_proc_start((long)getppid()) > 0);
	snprintf(line, sizeof(line), "gpuplace-owner host=%s pid=%ld start=%llu boot=-\n", host,
	         (long)getppid(), orig_proc_start((long)getppid()));
	put_at(lpath, line);
	save_one(1764400000000403ULL, "tp=7");
	origs_persist();
	assert_false(origs_resume_due());
	assert_int_equal(log_matches("writes them no more"), 1);
	/* the same pid, started at another time: its pid used again */
	snprintf(line, sizeof(line), "gpuplace-owner host=%s pid=%ld start=%llu boot=-\n", host,
	         (long)getppid(), orig_proc_start((long)getppid()) + 1);
	put_at(lpath, line);
	origs_persist();
	assert_true(origs_resume_due());
}

/* A lock held past the wait: the write gives up after it, and the next
 * ones do not wait again for a while (a stuck holder costs a refresh 5 s
 * once, not at every write); neither file is written meanwhile. */
static void test_lock_busy(void **state)
{
	struct timespec a, b, c2;
	double first, second;
	pid_t pid;

	(void)state;
	origs_restore();
	origs_takeover();
	save_one(1764400000000501ULL, "tp=6");
	pid = hold_lock(8000);
	clock_gettime(CLOCK_MONOTONIC, &a);
	origs_persist();
	clock_gettime(CLOCK_MONOTONIC, &b);
	origs_journal();
	clock_gettime(CLOCK_MONOTONIC, &c2);
	first = (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) * 1e-9;
	second = (double)(c2.tv_sec - b.tv_sec) + (double)(c2.tv_nsec - b.tv_nsec) * 1e-9;
	assert_int_equal(access(path, F_OK) != 0, 1);
	assert_int_equal(access(jpath, F_OK) != 0, 1);
	assert_int_equal(exit_of(pid), 0); /* neither wrote while it held it */
	assert_true(first >= 4.9 && first < 7.9);
	assert_true(second < 1.0);
}

/* A start and a takeover open and read the file and its journal before
 * they take dec.lock, which submissions wait for (a StateSaveLocation on
 * NFS holds none of them); what they read is what they restore. */
static void test_read_unlocked(void **state)
{
	char want[4096];

	(void)state;
	put("# generation 3\n" GOOD1);
	snprintf(want, sizeof(want), "# generation 3\n%s", GOOD2);
	put_at(jpath, want);
	fopen_locked = 0;
	origs_restore();
	origs_takeover();
	assert_int_equal(fopen_locked, 0);
	assert_int_equal(log_matches("restored the originals of 2 jobs"), 2);
	origs_persist();
	records_are(GOOD1 GOOD2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_restore_then_write, setup, teardown),
		cmocka_unit_test_setup_teardown(test_change_written, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cut_and_refs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_takeover, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unwritable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_journal_read_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_journal_replaces, setup, teardown),
		cmocka_unit_test_setup_teardown(test_journal_after_cut, setup, teardown),
		cmocka_unit_test_setup_teardown(test_journal_unread_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_journal_retried, setup, teardown),
		cmocka_unit_test_setup_teardown(test_journal_many, setup, teardown),
		cmocka_unit_test_setup_teardown(test_journal_sections, setup, teardown),
		cmocka_unit_test_setup_teardown(test_journal_not_removed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_superseded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_takeover_waits_for_write, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_waits_for_lock, setup, teardown),
		cmocka_unit_test_setup_teardown(test_owner_ended, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lock_busy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_unlocked, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
