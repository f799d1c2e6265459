/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * telemetry.c - the power telemetry poller: fetches every Telemetry= source
 * of gpuplace.conf (Prometheus instant query, Redfish power resource, local
 * file) in its own thread and publishes immutable snapshots.
 *
 * Readers (the engine on the Slurm submission path) only take a reference
 * on the current snapshot under a mutex held for a pointer copy and an
 * atomic increment: they never wait on the network or on a poll.
 *
 * Failures keep the last good sample of each rack; it ages and, once older
 * than its source's Stale= limit, gp__power_headroom() falls back to the
 * conservative estimate (never below that last sample).  Each source logs
 * one line when its kind of failure changes (and one when it recovers), not
 * one per poll.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "power.h"

/* Largest response or file read.  An assumption with room to spare: a
 * Prometheus vector of one series per rack is ~150 bytes a rack (10,000
 * racks < 2 MiB) and a Redfish Power resource a few KiB.  Override with
 * gp_poller_opts_t.max_body. */
#define DEFAULT_MAX_BODY (4u << 20)

struct file_read;

struct source {
	const gp_telemetry_t *t;
	double next_due;                /* CLOCK_MONOTONIC s */
	gp_source_status_t st;
	char logged_key[256];           /* failure kind last logged, "" = none */
	int fail_detail;                /* curl code / 1000 + HTTP status of the last failure */
	struct file_read *file_stuck;   /* Type=file: a read past its Timeout, or NULL */
};

struct gp_poller {
	const gp_cluster_t *c;
	gp_poller_opts_t o;
	struct source *src;
	int32_t nsrc;
	gp__reading_t *readings;        /* scratch for parsers */
	int32_t nreadings;
	bool *stale_logged;             /* per rack: its going stale was logged */
	gp_power_sample_t *racks;       /* last good sample per rack (poller thread) */
	gp_power_sample_t *nodes;       /* last good sample per node (Redfish Nodes=) */
	CURL *curl;                     /* poller thread only */
	int fail_detail;                /* last http_get failure: curl code, 1000 + HTTP status */

	pthread_mutex_t lock;           /* guards cur and gen */
	gp_power_snapshot_t *cur;
	uint64_t gen;

	pthread_mutex_t run_lock;       /* guards stop, wakes the thread */
	pthread_cond_t run_cond;
	bool stop;
	bool running;
	pthread_t thread;
};

static double mono_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- libcurl ------------------------------------------------------------ */

static pthread_once_t curl_once = PTHREAD_ONCE_INIT;
static CURLcode curl_init_rc = CURLE_FAILED_INIT;

static void curl_init(void)
{
	/* libcurl-thread(3): once per process, before any thread uses it */
	curl_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

struct body {
	char *buf;
	size_t len, cap, max;
	bool too_big;
};

static size_t write_cb(char *data, size_t size, size_t nmemb, void *arg)
{
	struct body *b = arg;
	size_t n = size * nmemb;

	if (n > b->max || b->len > b->max - n) {
		b->too_big = true;
		return 0; /* aborts the transfer with CURLE_WRITE_ERROR */
	}
	if (b->len + n + 1 > b->cap) {
		size_t ncap = b->cap ? b->cap : 16384;
		char *nb;

		while (ncap < b->len + n + 1)
			ncap *= 2;
		nb = realloc(b->buf, ncap);
		if (!nb)
			return 0;
		b->buf = nb;
		b->cap = ncap;
	}
	memcpy(b->buf + b->len, data, n);
	b->len += n;
	b->buf[b->len] = '\0';
	return n;
}

/* Read the credential in path: refuse a file others may read or write.
 * *out (malloc'd, caller frees after clearing) holds its first line. */
static int read_secret(const char *path, char **out, gp_error_t *err)
{
	char buf[4096];
	struct stat sb;
	ssize_t n;
	int fd;

	*out = NULL;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return gp__errorf(err, GP_EIO, "AuthFile %s: %s", path, strerror(errno));
	if (fstat(fd, &sb) < 0 || !S_ISREG(sb.st_mode)) {
		close(fd);
		return gp__errorf(err, GP_EIO, "AuthFile %s: not a regular file", path);
	}
	if (sb.st_mode & (S_IROTH | S_IWOTH)) {
		close(fd);
		return gp__errorf(err, GP_EIO,
		                  "AuthFile %s: readable or writable by others (mode %03o); refused, "
		                  "chmod o-rw it", path, (unsigned)(sb.st_mode & 0777));
	}
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n < 0)
		return gp__errorf(err, GP_EIO, "AuthFile %s: %s", path, strerror(errno));
	buf[n] = '\0';
	buf[strcspn(buf, "\r\n")] = '\0';
	if (!buf[0]) {
		explicit_bzero(buf, sizeof(buf));
		return gp__errorf(err, GP_EIO, "AuthFile %s: empty", path);
	}
	*out = strdup(buf);
	explicit_bzero(buf, sizeof(buf));
	if (!*out)
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	return GP_OK;
}

static void secret_free(char *s)
{
	if (s) {
		explicit_bzero(s, strlen(s));
		free(s);
	}
}

/* libcurl's progress callback: "called by libcurl instead of its internal
 * equivalent with a frequent interval ... during slow periods like when
 * nothing is being transferred it can slow down to about one call per
 * second" (curl CURLOPT_XFERINFOFUNCTION(3)); returning non-zero aborts the
 * transfer with CURLE_ABORTED_BY_CALLBACK.  So a stop request ends a poll
 * waiting on a hung source within about a second, whatever its Timeout. */
static int xferinfo_cb(void *arg, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
                       curl_off_t ulnow)
{
	gp_poller_t *p = arg;
	bool stop;

	(void)dltotal;
	(void)dlnow;
	(void)ultotal;
	(void)ulnow;
	pthread_mutex_lock(&p->run_lock);
	stop = p->stop;
	pthread_mutex_unlock(&p->run_lock);
	return stop ? 1 : 0;
}

#define SETOPT(opt, val)                                                                 \
	do {                                                                             \
		if ((cc = curl_easy_setopt(h, opt, val)) != CURLE_OK) {                  \
			rc = gp__errorf(err, GP_ENET, "curl_easy_setopt(%s): %s", #opt,  \
			                curl_easy_strerror(cc));                         \
			goto out;                                                        \
		}                                                                        \
	} while (0)

/* GET url into *b (caller frees b->buf).  0, GP_ENET, GP_ELIMIT, GP_EIO
 * (auth file) or GP_ENOMEM, with one line in err. */
static int http_get(gp_poller_t *p, const gp_telemetry_t *t, const char *url, struct body *b,
                    gp_error_t *err)
{
	CURL *h = p->curl;
	struct curl_slist *hdrs = NULL, *nh;
	char errbuf[CURL_ERROR_SIZE] = "";
	char *secret = NULL, *auth_hdr = NULL;
	long status = 0, timeout_ms;
	CURLcode cc;
	int rc = GP_OK;

	memset(b, 0, sizeof(*b));
	b->max = p->o.max_body;
	if (!h)
		return gp__errorf(err, GP_ENET, "no curl handle");
	curl_easy_reset(h);
	if (t->auth != GP_AUTH_NONE && (rc = read_secret(t->auth_file, &secret, err)) < 0)
		return rc;
	timeout_ms = (long)ceil(t->timeout_s * 1000.0);
	if (timeout_ms < 1)
		timeout_ms = 1;
	SETOPT(CURLOPT_URL, url);
	SETOPT(CURLOPT_NOSIGNAL, 1L);
	SETOPT(CURLOPT_CONNECTTIMEOUT_MS, timeout_ms);
	SETOPT(CURLOPT_TIMEOUT_MS, timeout_ms);
#if LIBCURL_VERSION_NUM >= 0x075500
	SETOPT(CURLOPT_PROTOCOLS_STR, "http,https");
	SETOPT(CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
#else
	SETOPT(CURLOPT_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
	SETOPT(CURLOPT_REDIR_PROTOCOLS, (long)(CURLPROTO_HTTP | CURLPROTO_HTTPS));
#endif
	SETOPT(CURLOPT_FOLLOWLOCATION, 0L);
	SETOPT(CURLOPT_SSL_VERIFYPEER, 1L);
	SETOPT(CURLOPT_SSL_VERIFYHOST, 2L);
	if (t->ca_file[0])
		SETOPT(CURLOPT_CAINFO, t->ca_file);
	SETOPT(CURLOPT_MAXFILESIZE_LARGE, (curl_off_t)p->o.max_body);
	SETOPT(CURLOPT_WRITEFUNCTION, write_cb);
	SETOPT(CURLOPT_WRITEDATA, b);
	SETOPT(CURLOPT_ERRORBUFFER, errbuf);
	SETOPT(CURLOPT_USERAGENT, "gpuplace/" PACKAGE_VERSION);
	SETOPT(CURLOPT_XFERINFOFUNCTION, xferinfo_cb);
	SETOPT(CURLOPT_XFERINFODATA, p);
	SETOPT(CURLOPT_NOPROGRESS, 0L);
	if (!(nh = curl_slist_append(hdrs, "Accept: application/json"))) {
		rc = gp__errorf(err, GP_ENOMEM, "out of memory");
		goto out;
	}
	hdrs = nh;
	if (t->auth == GP_AUTH_BEARER) {
		size_t n = strlen(secret) + 32;

		if (!(auth_hdr = malloc(n))) {
			rc = gp__errorf(err, GP_ENOMEM, "out of memory");
			goto out;
		}
		snprintf(auth_hdr, n, "Authorization: Bearer %s", secret);
		if (!(nh = curl_slist_append(hdrs, auth_hdr))) {
			rc = gp__errorf(err, GP_ENOMEM, "out of memory");
			goto out;
		}
		hdrs = nh;
	} else if (t->auth == GP_AUTH_BASIC) {
		if (!strchr(secret, ':')) {
			rc = gp__errorf(err, GP_EIO, "AuthFile %s: not user:password", t->auth_file);
			goto out;
		}
		SETOPT(CURLOPT_HTTPAUTH, (long)CURLAUTH_BASIC);
		SETOPT(CURLOPT_USERPWD, secret);
	}
	SETOPT(CURLOPT_HTTPHEADER, hdrs);

	cc = curl_easy_perform(h);
	p->fail_detail = (int)cc;
	if (cc != CURLE_OK) {
		const char *what = "transfer failed";

		switch (cc) {
		case CURLE_OPERATION_TIMEDOUT: what = "timed out"; break;
		case CURLE_ABORTED_BY_CALLBACK: what = "stopped"; break;
		case CURLE_COULDNT_CONNECT: what = "cannot connect"; break;
		case CURLE_COULDNT_RESOLVE_HOST: what = "unknown host"; break;
		case CURLE_PARTIAL_FILE: what = "truncated response"; break;
		case CURLE_GOT_NOTHING: what = "closed without answer"; break;
		case CURLE_UNSUPPORTED_PROTOCOL: what = "protocol not allowed"; break;
		case CURLE_SSL_CONNECT_ERROR:
		case CURLE_PEER_FAILED_VERIFICATION:
		case CURLE_SSL_CACERT_BADFILE: what = "TLS failed"; break;
		default: break;
		}
		if (b->too_big || cc == CURLE_FILESIZE_EXCEEDED)
			rc = gp__errorf(err, GP_ELIMIT, "response larger than %zu bytes", b->max);
		else
			rc = gp__errorf(err, GP_ENET, "%s: %s", what,
			                errbuf[0] ? errbuf : curl_easy_strerror(cc));
		goto out;
	}
	if ((cc = curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status)) != CURLE_OK) {
		rc = gp__errorf(err, GP_ENET, "curl_easy_getinfo: %s", curl_easy_strerror(cc));
		goto out;
	}
	if (status != 200) {
		char snip[128];
		size_t i, j = 0;

		/* the start of the body often says why (Prometheus: an error JSON) */
		for (i = 0; b->buf && i < b->len && j + 1 < sizeof(snip); i++)
			snip[j++] = b->buf[i] >= 0x20 && b->buf[i] < 0x7f ? b->buf[i] : ' ';
		while (j && snip[j - 1] == ' ')
			j--;
		snip[j] = '\0';
		p->fail_detail = 1000 + (int)status;
		rc = gp__errorf(err, GP_ENET, "HTTP status %ld%s%s", status, j ? ": " : "", snip);
		goto out;
	}
out:
	/* the handle keeps pointers to these and a copy of the password:
	 * reset it before they go */
	curl_easy_reset(h);
	curl_slist_free_all(hdrs);
	if (auth_hdr) {
		explicit_bzero(auth_hdr, strlen(auth_hdr));
		free(auth_hdr);
	}
	secret_free(secret);
	if (rc < 0) {
		free(b->buf);
		b->buf = NULL;
		b->len = 0;
	}
	return rc;
}

/*
 * A telemetry file is read by a short-lived thread of its own while the
 * poller waits at most the source's Timeout for it, so a file on a hung
 * network mount (open() and read() of a regular file ignore O_NONBLOCK and
 * may sleep in the kernel for as long as the server is away) costs the
 * poller one Timeout, not its life.  A FIFO or device is refused at once:
 * it is opened O_NONBLOCK and fstat()ed (gp__file_read with
 * GP_FILE_REGULAR), so a FIFO without a writer cannot block the open.
 *
 * The read's state is shared by reference count between the poller and the
 * reader thread: a reader still stuck when the poller gives up, stops or is
 * destroyed keeps it alive and frees it when its system call returns.  A
 * source whose previous read is still stuck starts no new one.
 */
struct file_read {
	pthread_mutex_t lock;
	pthread_cond_t cond;            /* CLOCK_MONOTONIC; signalled when done */
	int refs;                       /* under lock: poller + reader */
	bool done;
	size_t max;
	int (*read)(const char *, size_t, unsigned, gp__file_t *, gp_error_t *);
	gp__file_t f;
	gp_error_t err;
	int rc;
	char path[];
};

static void file_read_put(struct file_read *fr)
{
	bool last;

	if (!fr)
		return;
	pthread_mutex_lock(&fr->lock);
	last = --fr->refs == 0;
	pthread_mutex_unlock(&fr->lock);
	if (!last)
		return;
	free(fr->f.buf);
	pthread_cond_destroy(&fr->cond);
	pthread_mutex_destroy(&fr->lock);
	free(fr);
}

static void *file_read_main(void *arg)
{
	struct file_read *fr = arg;
	gp_error_t e = { "" };
	gp__file_t f;
	int rc;

	memset(&f, 0, sizeof(f));
	rc = fr->read(fr->path, fr->max, GP_FILE_REGULAR, &f, &e);

	pthread_mutex_lock(&fr->lock);
	fr->f = f;
	fr->err = e;
	fr->rc = rc;
	fr->done = true;
	pthread_cond_broadcast(&fr->cond);
	pthread_mutex_unlock(&fr->lock);
	file_read_put(fr);
	return NULL;
}

static bool stop_asked(gp_poller_t *p)
{
	bool stop;

	pthread_mutex_lock(&p->run_lock);
	stop = p->stop;
	pthread_mutex_unlock(&p->run_lock);
	return stop;
}

/* Read telemetry file t->url of at most p->o.max_body bytes into *b within
 * t->timeout_s; *mtime its modification time.  0, GP_EINVAL (not a
 * regular file), GP_ENET (timed out, stopped, a read still stuck), GP_EIO,
 * GP_ELIMIT or GP_ENOMEM with the file named in err. */
static int file_get(gp_poller_t *p, struct source *s, struct body *b, double *mtime,
                    gp_error_t *err)
{
	const gp_telemetry_t *t = s->t;
	size_t plen = strlen(t->url);
	struct file_read *fr;
	pthread_condattr_t ca;
	pthread_attr_t ta;
	pthread_t th;
	double deadline;
	int rc;

	memset(b, 0, sizeof(*b));
	*mtime = 0.0;
	if (s->file_stuck) {
		bool done;

		pthread_mutex_lock(&s->file_stuck->lock);
		done = s->file_stuck->done;
		pthread_mutex_unlock(&s->file_stuck->lock);
		if (!done)
			return gp__errorf(err, GP_ENET,
			                  "file %s: an earlier read is still blocked (hung mount?); "
			                  "no new read until it returns", t->url);
		file_read_put(s->file_stuck);
		s->file_stuck = NULL;
	}
	if (!(fr = calloc(1, sizeof(*fr) + plen + 1)))
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	memcpy(fr->path, t->url, plen + 1);
	fr->max = p->o.max_body;
	fr->read = p->o.file_read ? p->o.file_read : gp__file_read;
	fr->refs = 2;
	pthread_mutex_init(&fr->lock, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&fr->cond, &ca);
	pthread_condattr_destroy(&ca);
	pthread_attr_init(&ta);
	pthread_attr_setdetachstate(&ta, PTHREAD_CREATE_DETACHED);
	rc = pthread_create(&th, &ta, file_read_main, fr);
	pthread_attr_destroy(&ta);
	if (rc) {
		fr->refs = 1;
		file_read_put(fr);
		return gp__errorf(err, GP_ENOMEM, "file %s: cannot start its reader: %s", t->url,
		                  strerror(rc));
	}
	/* wait for the reader, the Timeout, or a stop (checked every 50 ms) */
	deadline = mono_now() + t->timeout_s;
	pthread_mutex_lock(&fr->lock);
	while (!fr->done) {
		double now = mono_now(), until = fmin(deadline, now + 0.05);
		struct timespec ts;

		if (now >= deadline)
			break;
		ts.tv_sec = (time_t)until;
		ts.tv_nsec = (long)((until - (double)ts.tv_sec) * 1e9);
		pthread_cond_timedwait(&fr->cond, &fr->lock, &ts);
		if (!fr->done) {
			pthread_mutex_unlock(&fr->lock);
			if (stop_asked(p)) {
				s->file_stuck = fr;
				return gp__errorf(err, GP_ENET, "stopped");
			}
			pthread_mutex_lock(&fr->lock);
		}
	}
	if (!fr->done) {
		pthread_mutex_unlock(&fr->lock);
		s->file_stuck = fr; /* looked at again by the next poll */
		return gp__errorf(err, GP_ENET, "file %s: no answer within Timeout=%g s (hung mount?)",
		                  t->url, t->timeout_s);
	}
	pthread_mutex_unlock(&fr->lock);
	rc = fr->rc;
	if (rc == GP_EINVAL)
		gp__errorf(err, rc, "file %s: not a regular file (a FIFO, device or directory "
		           "could block or never end; refused)", t->url);
	else if (rc < 0)
		gp__errorf(err, rc, "%s", fr->err.text);
	else {
		b->buf = fr->f.buf;
		b->len = fr->f.len;
		*mtime = fr->f.mtime;
		fr->f.buf = NULL;
	}
	file_read_put(fr);
	return rc;
}

/* ---- one poll of one source -------------------------------------------- */

static double clock_now(gp_poller_t *p)
{
	return p->o.clock(p->o.clock_arg);
}

/* Copy src into dst[size], truncated, always terminated. */
static void copy_str(char *dst, size_t size, const char *src)
{
	size_t n = strlen(src);

	if (!size)
		return;
	if (n >= size)
		n = size - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* Append "; text" to the problem list (truncated when full). */
static void problem(char *buf, size_t size, const char *text)
{
	size_t l = strlen(buf);

	if (l + 3 >= size)
		return;
	if (l) {
		memcpy(buf + l, "; ", 3);
		l += 2;
	}
	copy_str(buf + l, size - l, text);
}

static bool covers_rack(const gp_telemetry_t *t, int32_t r)
{
	int32_t i;

	if (!t->nracks)
		return true;
	for (i = 0; i < t->nracks; i++)
		if (t->racks[i] == r)
			return true;
	return false;
}

/* Store checked readings of source s taken at time when; note problems. */
static int apply_readings(gp_poller_t *p, struct source *s, const gp__reading_t *rd, int32_t n,
                          int32_t unknown, double when, char *prob, size_t psize)
{
	const gp_cluster_t *c = p->c;
	char line[320];
	int32_t *seen;
	int32_t i, good = 0;
	double t;

	/* seen[r]: number of values for rack r in the answer */
	seen = calloc((size_t)c->nracks + 1, sizeof(*seen));
	if (!seen) {
		problem(prob, psize, "out of memory");
		return 0;
	}
	for (i = 0; i < n; i++)
		if (covers_rack(s->t, rd[i].rack))
			seen[rd[i].rack]++;
	for (i = 0; i < n; i++) {
		gp_error_t e = { "" };
		int32_t r = rd[i].rack;

		if (!covers_rack(s->t, r))
			continue;
		if (seen[r] > 1) {
			/* which one is the rack? sum in the query instead */
			if (seen[r] < INT32_MAX) {
				snprintf(line, sizeof(line),
				         "rack %s: several values in the answer (sum them per rack in the query)",
				         c->racks[r].name);
				problem(prob, psize, line);
				seen[r] = INT32_MAX;
			}
			continue;
		}
		if (gp__power_check_units(c, r, rd[i].watts, &e) < 0) {
			snprintf(line, sizeof(line), "rack %s: %s", c->racks[r].name, e.text);
			problem(prob, psize, line);
			continue;
		}
		/* the sample's own time (Prometheus [time, "value"]) ages it; a
		 * time ahead of the poll (clocks apart) counts as the poll's, and
		 * as a sample time 0 means "never", an epoch-0 stamp is kept as
		 * 1 s, as stale */
		t = rd[i].time < 0.0 || rd[i].time > when ? when : fmax(rd[i].time, 1.0);
		if (t < p->racks[r].time)
			continue; /* older than the sample already held */
		if (when - t > s->t->stale_s) {
			snprintf(line, sizeof(line),
			         "rack %s: the sample is %.0f s old, older than Stale=%g s", c->racks[r].name,
			         when - t, s->t->stale_s);
			problem(prob, psize, line);
		}
		p->racks[r].watts = rd[i].watts;
		p->racks[r].time = t;
		p->racks[r].stale_s = s->t->stale_s;
		snprintf(p->racks[r].source, sizeof(p->racks[r].source), "%s", s->t->name);
		good++;
	}
	for (i = 0; i < c->nracks; i++)
		if (covers_rack(s->t, i) && !seen[i]) {
			snprintf(line, sizeof(line), "rack %s: no value in the answer (missing rack)",
			         c->racks[i].name);
			problem(prob, psize, line);
		}
	if (unknown) {
		snprintf(line, sizeof(line), "%d series/entries name no known rack", (int)unknown);
		problem(prob, psize, line);
	}
	free(seen);
	return good;
}

/* Rack sums from per-node Redfish readings: a rack is measured when every
 * node of it has a sample; its time is the oldest of them. */
static void racks_from_nodes(gp_poller_t *p, const struct source *s)
{
	const gp_cluster_t *c = p->c;
	int32_t r, i;

	for (r = 0; r < c->nracks; r++) {
		const gp_rack_t *rk = &c->racks[r];
		double sum = 0.0, oldest = 0.0, stale = 0.0;
		bool touched = false, all = rk->nnodes > 0;

		for (i = 0; i < rk->nnodes && all; i++) {
			const gp_power_sample_t *ns = &p->nodes[rk->nodes[i]];

			if (ns->time <= 0.0) {
				all = false;
				break;
			}
			if (!strcmp(ns->source, s->t->name))
				touched = true;
			sum += ns->watts;
			if (!oldest || ns->time < oldest)
				oldest = ns->time;
			if (!stale || ns->stale_s < stale)
				stale = ns->stale_s;
		}
		if (!all || !touched || oldest <= p->racks[r].time)
			continue;
		if (gp__power_check_units(c, r, sum, NULL) < 0)
			continue;
		p->racks[r].watts = sum;
		p->racks[r].time = oldest;
		p->racks[r].stale_s = stale;
		snprintf(p->racks[r].source, sizeof(p->racks[r].source), "%s", s->t->name);
	}
}

/* Substitute "{node}" in url with name into out. */
static int node_url(const char *url, const char *name, char *out, size_t size)
{
	const char *at = strstr(url, "{node}");
	int n;

	if (!at)
		n = snprintf(out, size, "%s", url);
	else
		n = snprintf(out, size, "%.*s%s%s", (int)(at - url), url, name, at + 6);
	return n < 0 || (size_t)n >= size ? GP_ELIMIT : GP_OK;
}

static int poll_redfish(gp_poller_t *p, struct source *s, char *prob, size_t psize,
                        gp_error_t *err)
{
	const gp_telemetry_t *t = s->t;
	const gp_cluster_t *c = p->c;
	char url[GP_PATH_MAX + GP_NAME_MAX], line[400];
	struct body b;
	int32_t i, ok = 0;
	int rc;

	if (t->nnodes > 0) {
		for (i = 0; i < t->nnodes; i++) {
			const gp_node_t *n = &c->nodes[t->nodes[i]];
			gp_error_t e = { "" };
			double w;

			pthread_mutex_lock(&p->run_lock);
			rc = p->stop;
			pthread_mutex_unlock(&p->run_lock);
			if (rc)
				return gp__errorf(err, GP_ENET, "stopped");
			if (node_url(t->url, n->name, url, sizeof(url)) < 0) {
				snprintf(line, sizeof(line), "node %s: URL too long", n->name);
				problem(prob, psize, line);
				continue;
			}
			if ((rc = http_get(p, t, url, &b, &e)) == 0) {
				rc = gp__parse_redfish(b.buf, b.len, NULL, &w, &e);
				free(b.buf);
			}
			if (rc == 0 && (!isfinite(w) || w < 0.0)) {
				rc = GP_ERANGE;
				gp__errorf(&e, rc, "%g W is negative or not finite (wrong units?)", w);
			}
			if (rc < 0) {
				snprintf(line, sizeof(line), "node %s: %s", n->name, e.text);
				problem(prob, psize, line);
				continue;
			}
			p->nodes[t->nodes[i]].watts = w;
			p->nodes[t->nodes[i]].time = clock_now(p);
			p->nodes[t->nodes[i]].stale_s = t->stale_s;
			snprintf(p->nodes[t->nodes[i]].source, GP_NAME_MAX, "%s", t->name);
			ok++;
		}
		racks_from_nodes(p, s);
		if (!ok)
			return gp__errorf(err, GP_ENET, "%s", prob);
		return GP_OK;
	}
	/* Racks=: the resource measures those racks (a PDU or power shelf);
	 * with several racks, PowerControl members are matched by Name or
	 * MemberId equal to the rack name. */
	if ((rc = http_get(p, t, t->url, &b, err)) < 0)
		return rc;
	for (i = 0; i < t->nracks; i++) {
		gp__reading_t *rd = &p->readings[ok];
		gp_error_t e = { "" };

		rd->rack = t->racks[i];
		rd->time = -1.0;
		rc = gp__parse_redfish(b.buf, b.len, t->nracks > 1 ? c->racks[rd->rack].name : NULL,
		                       &rd->watts, &e);
		if (rc == GP_EJSON) {
			free(b.buf);
			return gp__errorf(err, rc, "%s", e.text);
		}
		if (rc == 0 && ok < c->nracks)
			ok++;
		/* else: reported as a missing rack by apply_readings() */
	}
	free(b.buf);
	if (!apply_readings(p, s, p->readings, ok, 0, clock_now(p), prob, psize))
		return gp__errorf(err, GP_ERANGE, "%s", prob);
	return GP_OK;
}

/* Poll source s once; fills s->st. */
static void poll_source(gp_poller_t *p, struct source *s)
{
	const gp_telemetry_t *t = s->t;
	const gp_cluster_t *c = p->c;
	gp_error_t err = { "" };
	char prob[256] = "";
	struct body b = { 0 };
	int32_t n = 0, unknown = 0;
	double when = 0.0, ftime = 0.0, mtime = 0.0;
	int rc = GP_OK, good = 0;

	s->st.last_poll = clock_now(p);
	p->fail_detail = 0;
	switch (t->kind) {
	case GP_TELEMETRY_PROMETHEUS: {
		char *q = NULL, url[2 * GP_PATH_MAX + 64];
		size_t ul = strlen(t->url);
		int k;

		if (!(q = curl_easy_escape(p->curl, t->query, 0))) {
			rc = gp__errorf(&err, GP_ENOMEM, "out of memory");
			break;
		}
		while (ul && t->url[ul - 1] == '/')
			ul--;
		if (strstr(t->url, "/api/v1/"))
			k = snprintf(url, sizeof(url), "%s%cquery=%s", t->url,
			             strchr(t->url, '?') ? '&' : '?', q);
		else
			k = snprintf(url, sizeof(url), "%.*s/api/v1/query?query=%s", (int)ul, t->url, q);
		curl_free(q);
		if (k < 0 || (size_t)k >= sizeof(url)) {
			rc = gp__errorf(&err, GP_ELIMIT, "query URL too long");
			break;
		}
		if ((rc = http_get(p, t, url, &b, &err)) < 0)
			break;
		when = clock_now(p);
		rc = gp__parse_prometheus(c, t->rack_label[0] ? t->rack_label : "rack", b.buf, b.len,
		                          p->readings, p->nreadings, &n, &unknown, &err);
		break;
	}
	case GP_TELEMETRY_FILE:
		if ((rc = file_get(p, s, &b, &mtime, &err)) < 0)
			break;
		rc = gp__parse_power_file(c, b.buf, b.len, p->readings, p->nreadings, &n, &unknown,
		                          &ftime, &err);
		/* the file's own time, else when it was written */
		when = ftime > 0.0 ? ftime : mtime;
		break;
	case GP_TELEMETRY_REDFISH:
		rc = poll_redfish(p, s, prob, sizeof(prob), &err);
		break;
	default:
		rc = gp__errorf(&err, GP_EINTERNAL, "unknown telemetry type %d", (int)t->kind);
		break;
	}
	free(b.buf);
	if (rc == 0 && t->kind != GP_TELEMETRY_REDFISH)
		good = apply_readings(p, s, p->readings, n, unknown, when, prob, sizeof(prob));
	s->fail_detail = rc < 0 ? p->fail_detail : 0;
	if (rc < 0) {
		s->st.state = GP_SOURCE_FAILED;
		copy_str(s->st.message, sizeof(s->st.message), err.text);
	} else if (prob[0]) {
		s->st.state = good || t->kind == GP_TELEMETRY_REDFISH ? GP_SOURCE_PARTIAL
		                                                       : GP_SOURCE_FAILED;
		copy_str(s->st.message, sizeof(s->st.message), prob);
		if (good)
			s->st.last_ok = s->st.last_poll;
	} else {
		s->st.state = GP_SOURCE_OK;
		s->st.message[0] = '\0';
		s->st.last_ok = s->st.last_poll;
	}
}

/* The kind of a failure: its code and the message without the numbers
 * standing alone (values, milliseconds), so "timed out after 2001 ms" and
 * "after 2003 ms" are one event, while names like "r3" stay. */
static void event_key(const struct source *s, int detail, const char *msg, char *key,
                      size_t size)
{
	int j = snprintf(key, size, "%d/%d/", (int)s->st.state, detail);
	const char *m;

	if (j < 0 || (size_t)j >= size)
		return;
	for (m = msg; *m && (size_t)j + 1 < size; m++) {
		bool digit = (*m >= '0' && *m <= '9') || *m == '.';
		bool alnum_before = m > msg && ((m[-1] >= 'a' && m[-1] <= 'z') ||
		                                (m[-1] >= 'A' && m[-1] <= 'Z') ||
		                                (m[-1] >= '0' && m[-1] <= '9' && key[j - 1] == m[-1]));

		if (digit && !alnum_before)
			continue;
		key[j++] = *m;
	}
	key[j] = '\0';
}

static void log_change(gp_poller_t *p, struct source *s)
{
	char key[256], line[768];
	const char *what;

	if (!p->o.log)
		return;
	if (s->st.state == GP_SOURCE_OK) {
		if (s->logged_key[0]) {
			snprintf(line, sizeof(line), "telemetry %s: recovered", s->t->name);
			p->o.log(p->o.log_arg, GP_LOG_INFO, line);
			s->logged_key[0] = '\0';
		}
		return;
	}
	event_key(s, s->fail_detail, s->st.message, key, sizeof(key));
	if (!strcmp(key, s->logged_key))
		return;
	snprintf(s->logged_key, sizeof(s->logged_key), "%s", key);
	what = s->st.state == GP_SOURCE_FAILED ? "failed, keeping last samples until stale"
	                                       : "partly answered";
	snprintf(line, sizeof(line), "telemetry %s (%.160s): %s: %.250s", s->t->name, s->t->url, what,
	         s->st.message);
	p->o.log(p->o.log_arg, s->st.state == GP_SOURCE_FAILED ? GP_LOG_ERROR : GP_LOG_WARNING,
	         line);
}

/* One line when racks' samples pass their staleness limit (headroom then
 * uses max(estimate, last measured)); re-armed when a rack is fresh again. */
static void log_stale(gp_poller_t *p)
{
	const gp_cluster_t *c = p->c;
	char names[400] = "";
	double now = clock_now(p);
	int32_t r, n = 0;

	for (r = 0; r < c->nracks; r++) {
		const gp_power_sample_t *x = &p->racks[r];
		bool stale = x->time > 0.0 && now - x->time > x->stale_s;

		if (!stale) {
			p->stale_logged[r] = false;
			continue;
		}
		if (p->stale_logged[r])
			continue;
		p->stale_logged[r] = true;
		if (n++ < 16) {
			size_t l = strlen(names);

			snprintf(names + l, sizeof(names) - l, "%s%s", l ? ", " : "", c->racks[r].name);
		}
	}
	if (n && p->o.log) {
		char line[600];

		snprintf(line, sizeof(line),
		         "telemetry: %d rack(s) with samples older than their Stale= limit (%s%s); "
		         "their headroom now uses max(estimate, last measured)", (int)n, names,
		         n > 16 ? "; ..." : "");
		p->o.log(p->o.log_arg, GP_LOG_WARNING, line);
	}
}

/* ---- snapshots ------------------------------------------------------------ */

void gp__power_snapshot_put(const gp_power_snapshot_t *snap)
{
	gp_power_snapshot_t *s = (gp_power_snapshot_t *)snap;

	if (!s)
		return;
	if (__atomic_sub_fetch(&s->refs, 1, __ATOMIC_ACQ_REL) == 0)
		free(s);
}

static int publish(gp_poller_t *p)
{
	const gp_cluster_t *c = p->c;
	gp_power_snapshot_t *s, *old;
	size_t size = sizeof(*s) + sizeof(*s->racks) * (size_t)c->nracks +
	              sizeof(*s->sources) * (size_t)p->nsrc;
	int32_t i;

	/* one allocation: the struct, then the rack samples, then the sources */
	s = calloc(1, size);
	if (!s)
		return GP_ENOMEM;
	s->refs = 1;
	s->time = clock_now(p);
	s->nracks = c->nracks;
	s->racks = (gp_power_sample_t *)(s + 1);
	memcpy(s->racks, p->racks, sizeof(*s->racks) * (size_t)c->nracks);
	s->nsources = p->nsrc;
	s->sources = (gp_source_status_t *)(s->racks + c->nracks);
	for (i = 0; i < p->nsrc; i++)
		s->sources[i] = p->src[i].st;
	pthread_mutex_lock(&p->lock);
	s->generation = ++p->gen;
	old = p->cur;
	p->cur = s;
	pthread_mutex_unlock(&p->lock);
	gp__power_snapshot_put(old);
	return GP_OK;
}

const gp_power_snapshot_t *gp__poller_snapshot_get(gp_poller_t *p)
{
	gp_power_snapshot_t *s;

	if (!p)
		return NULL;
	pthread_mutex_lock(&p->lock);
	s = p->cur;
	if (s)
		__atomic_add_fetch(&s->refs, 1, __ATOMIC_ACQ_REL);
	pthread_mutex_unlock(&p->lock);
	return s;
}

/* ---- life cycle ------------------------------------------------------------ */

int gp__poller_create(const gp_cluster_t *c, const gp_poller_opts_t *opts, gp_poller_t **out,
                     gp_error_t *err)
{
	gp_poller_t *p = NULL;
	int32_t i;
	int rc;

	if (!out)
		return gp__errorf(err, GP_EINVAL, "gp__poller_create: out is NULL");
	*out = NULL;
	if (!c)
		return gp__errorf(err, GP_EINVAL, "gp__poller_create: no cluster");
	for (i = 0; i < c->ntelemetry; i++) {
		const gp_telemetry_t *t = &c->telemetry[i];

		if (t->kind == GP_TELEMETRY_PROMETHEUS && !t->query[0])
			return gp__errorf(err, GP_ECONFIG, "telemetry %s: Type=prometheus needs Query=",
			                  t->name);
		if (t->kind == GP_TELEMETRY_REDFISH && !t->nnodes && !t->nracks)
			return gp__errorf(err, GP_ECONFIG,
			                  "telemetry %s: Type=redfish needs Racks= or Nodes=", t->name);
		if (t->kind == GP_TELEMETRY_REDFISH && t->nnodes > 1 && !strstr(t->url, "{node}"))
			return gp__errorf(err, GP_ECONFIG,
			                  "telemetry %s: Nodes= lists several nodes but URL has no "
			                  "{node} to put each node's name in", t->name);
		if (t->kind == GP_TELEMETRY_REDFISH && t->nnodes && t->nracks)
			return gp__errorf(err, GP_ECONFIG,
			                  "telemetry %s: Racks= and Nodes= together", t->name);
	}
	pthread_once(&curl_once, curl_init);
	if (curl_init_rc != CURLE_OK)
		return gp__errorf(err, GP_ENET, "curl_global_init: %s",
		                  curl_easy_strerror(curl_init_rc));
	p = calloc(1, sizeof(*p));
	if (!p)
		return gp__errorf(err, GP_ENOMEM, "out of memory");
	pthread_mutex_init(&p->lock, NULL);
	pthread_mutex_init(&p->run_lock, NULL);
	{
		pthread_condattr_t ca;

		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		pthread_cond_init(&p->run_cond, &ca);
		pthread_condattr_destroy(&ca);
	}
	p->c = c;
	if (opts)
		p->o = *opts;
	if (!p->o.clock)
		p->o.clock = gp__power_clock_real;
	if (!p->o.max_body)
		p->o.max_body = DEFAULT_MAX_BODY;
	p->nsrc = c->ntelemetry;
	p->src = calloc((size_t)p->nsrc + 1, sizeof(*p->src));
	/* room for a few values per rack, so duplicates are seen and named */
	p->nreadings = 4 * c->nracks + 16;
	p->readings = calloc((size_t)p->nreadings, sizeof(*p->readings));
	p->stale_logged = calloc((size_t)c->nracks + 1, sizeof(*p->stale_logged));
	p->racks = calloc((size_t)c->nracks + 1, sizeof(*p->racks));
	p->nodes = calloc((size_t)c->nnodes + 1, sizeof(*p->nodes));
	p->curl = curl_easy_init();
	if (!p->src || !p->readings || !p->stale_logged || !p->racks || !p->nodes || !p->curl) {
		rc = gp__errorf(err, GP_ENOMEM, "out of memory");
		goto error;
	}
	for (i = 0; i < c->nracks; i++)
		p->racks[i].watts = -1.0;
	for (i = 0; i < c->nnodes; i++)
		p->nodes[i].watts = -1.0;
	for (i = 0; i < p->nsrc; i++) {
		p->src[i].t = &c->telemetry[i];
		snprintf(p->src[i].st.name, sizeof(p->src[i].st.name), "%s", c->telemetry[i].name);
	}
	*out = p;
	return GP_OK;
error:
	gp__poller_destroy(p);
	return rc;
}

static void *poller_main(void *arg)
{
	gp_poller_t *p = arg;

	for (;;) {
		double now = mono_now(), next = now + 3600.0;
		bool polled = false;
		struct timespec ts;
		int32_t i;

		for (i = 0; i < p->nsrc; i++) {
			struct source *s = &p->src[i];

			pthread_mutex_lock(&p->run_lock);
			if (p->stop) {
				pthread_mutex_unlock(&p->run_lock);
				return NULL;
			}
			pthread_mutex_unlock(&p->run_lock);
			if (s->next_due <= now) {
				poll_source(p, s);
				pthread_mutex_lock(&p->run_lock);
				if (p->stop) { /* a poll cut short by stop is no failure */
					pthread_mutex_unlock(&p->run_lock);
					return NULL;
				}
				pthread_mutex_unlock(&p->run_lock);
				log_change(p, s);
				s->next_due = mono_now() + s->t->interval_s;
				polled = true;
			}
			if (s->next_due < next)
				next = s->next_due;
		}
		if (polled)
			log_stale(p);
		if (polled && publish(p) < 0 && p->o.log)
			p->o.log(p->o.log_arg, GP_LOG_ERROR, "telemetry: out of memory publishing a snapshot");
		ts.tv_sec = (time_t)next;
		ts.tv_nsec = (long)((next - (double)ts.tv_sec) * 1e9);
		pthread_mutex_lock(&p->run_lock);
		while (!p->stop && mono_now() < next)
			if (pthread_cond_timedwait(&p->run_cond, &p->run_lock, &ts) == ETIMEDOUT)
				break;
		if (p->stop) {
			pthread_mutex_unlock(&p->run_lock);
			return NULL;
		}
		pthread_mutex_unlock(&p->run_lock);
	}
}

int gp__poller_start(gp_poller_t *p, gp_error_t *err)
{
	int rc;

	if (!p)
		return gp__errorf(err, GP_EINVAL, "gp__poller_start: no poller");
	if (p->running)
		return gp__errorf(err, GP_EINVAL, "gp__poller_start: already running");
	p->stop = false;
	rc = pthread_create(&p->thread, NULL, poller_main, p);
	if (rc)
		return gp__errorf(err, GP_ENOMEM, "pthread_create: %s", strerror(rc));
	p->running = true;
	return GP_OK;
}

void gp__poller_stop(gp_poller_t *p)
{
	if (!p || !p->running)
		return;
	pthread_mutex_lock(&p->run_lock);
	p->stop = true;
	pthread_cond_broadcast(&p->run_cond);
	pthread_mutex_unlock(&p->run_lock);
	pthread_join(p->thread, NULL);
	p->running = false;
}

int gp__poller_poll_once(gp_poller_t *p)
{
	int32_t i;

	if (!p || p->running)
		return GP_EINVAL;
	for (i = 0; i < p->nsrc; i++) {
		poll_source(p, &p->src[i]);
		log_change(p, &p->src[i]);
	}
	log_stale(p);
	return publish(p);
}

void gp__poller_destroy(gp_poller_t *p)
{
	int32_t i;

	if (!p)
		return;
	gp__poller_stop(p);
	/* a reader still blocked keeps its own reference */
	for (i = 0; p->src && i < p->nsrc; i++)
		file_read_put(p->src[i].file_stuck);
	gp__power_snapshot_put(p->cur);
	if (p->curl)
		curl_easy_cleanup(p->curl);
	free(p->src);
	free(p->readings);
	free(p->stale_logged);
	free(p->racks);
	free(p->nodes);
	pthread_cond_destroy(&p->run_cond);
	pthread_mutex_destroy(&p->run_lock);
	pthread_mutex_destroy(&p->lock);
	free(p);
}
