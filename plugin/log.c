/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * log.c - job_submit/gpuplace's log lines, every one escaped, and the
 * counters of the summary line it writes once a minute.
 */
#include "config.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "job_submit_gpuplace.h"

/* ---- log lines ------------------------------------------------------------ */

/*
 * Every line this plugin writes to slurmctld's log goes through gp_log():
 * job names, comments, hints, node lists, partition and reservation names
 * come from the user, and a newline or another control character in one
 * of them must not end the line or forge another ("slurmctld: error: ...").
 * The slurm_error/info/verbose/debug calls are macros for gp_log
 * (job_submit_gpuplace.h), so no line can bypass it; log_sink calls
 * Slurm's own functions.
 */

/* s into buf[len] with each byte below 0x20, 0x7f and the backslash written
 * as \xNN (\\ for the backslash), cut with "..." when it does not fit.
 * Returns buf. */
static const char *log_escape(const char *s, char *buf, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;

	if (!len)
		return buf;
	for (; s && *s; s++) {
		unsigned char ch = (unsigned char)*s;
		size_t need = ch < 0x20 || ch == 0x7f ? 4 : ch == '\\' ? 2 : 1;

		if (o + need + 4 > len) {
			if (o + 4 <= len)
				memcpy(buf + o, "...", 3), o += 3;
			break;
		}
		if (need == 4) {
			buf[o++] = '\\';
			buf[o++] = 'x';
			buf[o++] = hex[ch >> 4];
			buf[o++] = hex[ch & 15];
		} else {
			if (need == 2)
				buf[o++] = '\\';
			buf[o++] = (char)ch;
		}
	}
	buf[o] = '\0';
	return buf;
}

#ifndef GP_LOG_SINK
/* Slurm's log functions themselves (the parentheses keep the macros of
 * job_submit_gpuplace.h from applying). */
static void log_sink(int level, const char *line)
{
	switch (level) {
	case LOGL_ERROR:
		(slurm_error)("%s", line);
		break;
	case LOGL_INFO:
		(slurm_info)("%s", line);
		break;
	case LOGL_VERBOSE:
		(slurm_verbose)("%s", line);
		break;
	default:
		(slurm_debug)("%s", line);
		break;
	}
}
#define GP_LOG_SINK log_sink
#endif

void gp_log(int level, const char *fmt, ...)
{
	char raw[4096], line[4096];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(raw, sizeof(raw), fmt, ap);
	va_end(ap);
	GP_LOG_SINK(level, log_escape(raw, line, sizeof(line)));
}

/* ---- counters for the summary line ------------------------------------- */

static const char *const pass_names[PASS_NREASONS] = {
	"not a multi-GPU job", "request left to Slurm", "no valid configuration",
	"no cluster state yet", "cluster state is for an older configuration",
	"cluster state is stale", "placement engine not ready for this configuration",
	"engine error", "request Slurm judges",
};

/* What happened since the last summary line, under lock. */
static struct {
	pthread_mutex_t lock;
	unsigned long kind[3];        /* PIN, CONSTRAIN, REJECT */
	unsigned long pass[PASS_NREASONS];
	unsigned long bad_hints;
	unsigned long unpinned;       /* PINs turned into CONSTRAIN */
	unsigned long steered;        /* pending jobs moved (steer_pass) */
	/* a pass reason that concerns every job (no state, stale...) is
	 * logged at info once until it no longer holds, not once per job */
	bool announced[PASS_NREASONS];
	/* An engine failure is gpuplace's own: at error level, but at most
	 * once per GP_SUMMARY_S (the rest at verbose, all counted in the
	 * summary), so a burst of submissions that all meet it writes one
	 * error line. */
	time_t engine_error_logged;
} stats = { .lock = PTHREAD_MUTEX_INITIALIZER };

void count_pass(enum pass_reason why, const char *label, const char *detail)
{
	bool announce = false;

	pthread_mutex_lock(&stats.lock);
	stats.pass[why]++;
	if (why >= PASS_NO_CONF && why <= PASS_NO_ENGINE && !stats.announced[why]) {
		stats.announced[why] = announce = true;
	}
	pthread_mutex_unlock(&stats.lock);
	if (announce)
		slurm_info("gpuplace: %s%s%s: jobs pass unchanged until it is resolved",
		           pass_names[why], detail && *detail ? ": " : "", detail ? detail : "");
	slurm_verbose("gpuplace: %s passes unchanged: %s%s%s", label, pass_names[why],
	              detail && *detail ? ": " : "", detail ? detail : "");
}

void pass_resolved(enum pass_reason why)
{
	pthread_mutex_lock(&stats.lock);
	stats.announced[why] = false;
	pthread_mutex_unlock(&stats.lock);
}

/* One info line per GP_SUMMARY_S with what happened in it; nothing when no
 * job was seen (an idle controller's log stays quiet). */
void summary_log(void)
{
	unsigned long kind[3], pass[PASS_NREASONS], bad, unpinned, total, steered;
	char passes[512];
	size_t used = 0;
	int i;

	pthread_mutex_lock(&stats.lock);
	memcpy(kind, stats.kind, sizeof(kind));
	memcpy(pass, stats.pass, sizeof(pass));
	bad = stats.bad_hints;
	unpinned = stats.unpinned;
	steered = stats.steered;
	stats.steered = 0;
	memset(stats.kind, 0, sizeof(stats.kind));
	memset(stats.pass, 0, sizeof(stats.pass));
	stats.bad_hints = stats.unpinned = 0;
	pthread_mutex_unlock(&stats.lock);
	total = kind[0] + kind[1] + kind[2] + bad + steered;
	passes[0] = '\0';
	for (i = 0; i < PASS_NREASONS; i++) {
		total += pass[i];
		if (pass[i] && used < sizeof(passes)) {
			int n = snprintf(passes + used, sizeof(passes) - used, "%s%lu %s",
			                 used ? ", " : "", pass[i], pass_names[i]);

			if (n > 0)
				used += (size_t)n;
		}
	}
	if (!total)
		return;
	slurm_info("gpuplace: last %d s: %lu PIN, %lu CONSTRAIN (%lu of them instead of a PIN "
	           "Slurm could not be held to), %lu REJECT, %lu rejected hints; passed: %s; "
	           "pending jobs steered: %lu",
	           GP_SUMMARY_S, kind[GP_DECIDE_PIN], kind[GP_DECIDE_CONSTRAIN], unpinned,
	           kind[GP_DECIDE_REJECT], bad, used ? passes : "none", steered);
}

/* A job rejected for its hints. */
void count_bad_hints(void)
{
	pthread_mutex_lock(&stats.lock);
	stats.bad_hints++;
	pthread_mutex_unlock(&stats.lock);
}

/* A job that passed unchanged, counted only (its line is the caller's). */
void count_pass_quiet(enum pass_reason why)
{
	pthread_mutex_lock(&stats.lock);
	stats.pass[why]++;
	pthread_mutex_unlock(&stats.lock);
}

/* An engine failure: counted; true when it is the first of GP_SUMMARY_S,
 * which the caller logs at error level (the others at verbose). */
bool count_engine_error(void)
{
	bool loud;

	pthread_mutex_lock(&stats.lock);
	stats.pass[PASS_ENGINE]++;
	loud = time(NULL) >= stats.engine_error_logged + GP_SUMMARY_S;
	if (loud)
		stats.engine_error_logged = time(NULL);
	pthread_mutex_unlock(&stats.lock);
	return loud;
}

/* A decision of this kind; unpinned: a PIN turned into a CONSTRAIN. */
void count_decision(gp_decision_kind_t kind, bool unpinned)
{
	pthread_mutex_lock(&stats.lock);
	stats.kind[kind]++;
	if (unpinned)
		stats.unpinned++;
	pthread_mutex_unlock(&stats.lock);
}

/* A pending job moved by steering. */
void count_steered(void)
{
	pthread_mutex_lock(&stats.lock);
	stats.steered++;
	pthread_mutex_unlock(&stats.lock);
}

/* Every pass reason said again when it next holds (fini). */
void stats_forget_announced(void)
{
	pthread_mutex_lock(&stats.lock);
	memset(stats.announced, 0, sizeof(stats.announced));
	pthread_mutex_unlock(&stats.lock);
}
