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

pthread_mutex_t stats_lock = PTHREAD_MUTEX_INITIALIZER;
unsigned long stat_kind[3];            /* PIN, CONSTRAIN, REJECT */
unsigned long stat_pass[PASS_NREASONS];
unsigned long stat_bad_hints;
unsigned long stat_unpinned;           /* PINs turned into CONSTRAIN */
unsigned long stat_steered;            /* pending jobs moved (steer_pass) */
/* a pass reason that concerns every job (no state, stale...) is logged at
 * info once until it no longer holds, not once per job */
bool pass_announced[PASS_NREASONS];

void count_pass(enum pass_reason why, const char *label, const char *detail)
{
	bool announce = false;

	pthread_mutex_lock(&stats_lock);
	stat_pass[why]++;
	if (why >= PASS_NO_CONF && why <= PASS_NO_ENGINE && !pass_announced[why]) {
		pass_announced[why] = announce = true;
	}
	pthread_mutex_unlock(&stats_lock);
	if (announce)
		slurm_info("gpuplace: %s%s%s: jobs pass unchanged until it is resolved",
		           pass_names[why], detail && *detail ? ": " : "", detail ? detail : "");
	slurm_verbose("gpuplace: %s passes unchanged: %s%s%s", label, pass_names[why],
	              detail && *detail ? ": " : "", detail ? detail : "");
}

void pass_resolved(enum pass_reason why)
{
	pthread_mutex_lock(&stats_lock);
	pass_announced[why] = false;
	pthread_mutex_unlock(&stats_lock);
}

/* One info line per GP_SUMMARY_S with what happened in it; nothing when no
 * job was seen (an idle controller's log stays quiet). */
void summary_log(void)
{
	unsigned long kind[3], pass[PASS_NREASONS], bad, unpinned, total, steered;
	char passes[512];
	size_t used = 0;
	int i;

	pthread_mutex_lock(&stats_lock);
	memcpy(kind, stat_kind, sizeof(kind));
	memcpy(pass, stat_pass, sizeof(pass));
	bad = stat_bad_hints;
	unpinned = stat_unpinned;
	steered = stat_steered;
	stat_steered = 0;
	memset(stat_kind, 0, sizeof(stat_kind));
	memset(stat_pass, 0, sizeof(stat_pass));
	stat_bad_hints = stat_unpinned = 0;
	pthread_mutex_unlock(&stats_lock);
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
