/* SPDX-License-Identifier: GPL-2.0-or-later */
/* http_server.c - scriptable loopback HTTP/1.1 server for telemetry tests. */
#include "config.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "http_server.h"

#define MAX_ROUTES 32

struct route {
	char path[256];
	ts_response_t r;
	char *body;
};

struct ts_server {
	int fd;
	int port;
	char url[64];
	pthread_t thread;
	pthread_mutex_t lock;
	bool stop;
	struct route routes[MAX_ROUTES];
	int nroutes;
	int requests;
	char last_line[512];
	char last_auth[512];
};

static bool stopping(ts_server_t *s)
{
	bool b;

	pthread_mutex_lock(&s->lock);
	b = s->stop;
	pthread_mutex_unlock(&s->lock);
	return b;
}

static void send_all(int fd, const char *buf, size_t len)
{
	while (len) {
		ssize_t n = send(fd, buf, len, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		buf += n;
		len -= (size_t)n;
	}
}

/* Read the request head (up to the blank line); 0 or -1. */
static int read_head(ts_server_t *s, int fd, char *buf, size_t size)
{
	size_t len = 0;

	while (len + 1 < size) {
		struct pollfd pf = { .fd = fd, .events = POLLIN };
		ssize_t n;
		int pr = poll(&pf, 1, 100);

		if (stopping(s))
			return -1;
		if (pr <= 0)
			continue;
		n = recv(fd, buf + len, size - 1 - len, 0);
		if (n <= 0)
			return -1;
		len += (size_t)n;
		buf[len] = '\0';
		if ((unsigned char)buf[0] == 0x16)
			return -1; /* a TLS handshake: this server only speaks plain HTTP */
		if (strstr(buf, "\r\n\r\n"))
			return 0;
	}
	return -1;
}

static void sleep_ms(ts_server_t *s, int ms)
{
	while (ms > 0 && !stopping(s)) {
		int step = ms < 20 ? ms : 20;
		struct timespec ts = { 0, step * 1000000L };

		nanosleep(&ts, NULL);
		ms -= step;
	}
}

static void answer(ts_server_t *s, int fd)
{
	char head[8192], path[256], hdr[256];
	const char *sp, *end, *a, *body;
	struct route rt = { .r = { .status = 200 } };
	size_t blen, plen;
	int i;

	if (read_head(s, fd, head, sizeof(head)) < 0)
		return;
	sp = strchr(head, ' ');
	end = sp ? strpbrk(sp + 1, " ?") : NULL;
	plen = sp && end ? (size_t)(end - sp - 1) : 0;
	if (plen >= sizeof(path))
		plen = sizeof(path) - 1;
	memcpy(path, sp ? sp + 1 : "", plen);
	path[plen] = '\0';

	pthread_mutex_lock(&s->lock);
	s->requests++;
	snprintf(s->last_line, sizeof(s->last_line), "%.*s", (int)strcspn(head, "\r\n"), head);
	s->last_auth[0] = '\0';
	for (a = head; (a = strstr(a, "\r\n")); a += 2)
		if (!strncasecmp(a + 2, "Authorization: ", 15)) {
			snprintf(s->last_auth, sizeof(s->last_auth), "%.*s",
			         (int)strcspn(a + 17, "\r\n"), a + 17);
			break;
		}
	for (i = 0; i < s->nroutes; i++)
		if (!strcmp(s->routes[i].path, path))
			break;
	if (i == s->nroutes)
		for (i = 0; i < s->nroutes; i++)
			if (!strcmp(s->routes[i].path, "*"))
				break;
	if (i < s->nroutes) {
		rt = s->routes[i];
		/* the body may be replaced while we answer: copy it */
		rt.body = strdup(s->routes[i].body ? s->routes[i].body : "");
	} else {
		rt.r.status = 404;
		rt.body = strdup("not found\n");
	}
	pthread_mutex_unlock(&s->lock);
	if (!rt.body)
		return;

	sleep_ms(s, rt.r.delay_ms);
	if (stopping(s) || rt.r.mode == TS_CLOSE)
		goto out;
	body = rt.body;
	blen = strlen(body);
	if (rt.r.mode == TS_OVERSIZE) {
		char *big = malloc(rt.r.oversize + 1);
		size_t k;

		if (!big)
			goto out;
		/* a JSON string that never ends before the bound */
		big[0] = '"';
		for (k = 1; k < rt.r.oversize; k++)
			big[k] = 'x';
		big[rt.r.oversize] = '\0';
		free(rt.body);
		rt.body = big;
		body = big;
		blen = rt.r.oversize;
	}
	snprintf(hdr, sizeof(hdr),
	         "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %zu\r\n"
	         "Connection: close\r\n\r\n",
	         rt.r.status ? rt.r.status : 200, rt.r.status == 200 || !rt.r.status ? "OK" : "Status",
	         blen);
	send_all(fd, hdr, strlen(hdr));
	send_all(fd, body, rt.r.mode == TS_TRUNCATE ? blen / 2 : blen);
out:
	free(rt.body);
}

static void *server_main(void *arg)
{
	ts_server_t *s = arg;

	while (!stopping(s)) {
		struct pollfd pf = { .fd = s->fd, .events = POLLIN };
		int c;

		if (poll(&pf, 1, 50) <= 0)
			continue;
		c = accept(s->fd, NULL, NULL);
		if (c < 0)
			continue;
		answer(s, c);
		shutdown(c, SHUT_RDWR);
		close(c);
	}
	return NULL;
}

ts_server_t *ts_start(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	socklen_t sl = sizeof(sa);
	ts_server_t *s = calloc(1, sizeof(*s));
	int one = 1;

	if (!s)
		return NULL;
	pthread_mutex_init(&s->lock, NULL);
	s->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s->fd < 0)
		goto error;
	setsockopt(s->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(s->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(s->fd, 16) < 0 ||
	    getsockname(s->fd, (struct sockaddr *)&sa, &sl) < 0)
		goto error;
	s->port = ntohs(sa.sin_port);
	snprintf(s->url, sizeof(s->url), "http://127.0.0.1:%d", s->port);
	if (pthread_create(&s->thread, NULL, server_main, s))
		goto error;
	return s;
error:
	if (s->fd >= 0)
		close(s->fd);
	pthread_mutex_destroy(&s->lock);
	free(s);
	return NULL;
}

void ts_stop(ts_server_t *s)
{
	int i;

	if (!s)
		return;
	pthread_mutex_lock(&s->lock);
	s->stop = true;
	pthread_mutex_unlock(&s->lock);
	pthread_join(s->thread, NULL);
	close(s->fd);
	for (i = 0; i < s->nroutes; i++)
		free(s->routes[i].body);
	pthread_mutex_destroy(&s->lock);
	free(s);
}

const char *ts_url(const ts_server_t *s)
{
	return s->url;
}

int ts_port(const ts_server_t *s)
{
	return s->port;
}

int ts_route(ts_server_t *s, const char *path, const ts_response_t *r)
{
	char *body = strdup(r->body ? r->body : "");
	int i, rc = 0;

	if (!body)
		return -1;
	pthread_mutex_lock(&s->lock);
	for (i = 0; i < s->nroutes; i++)
		if (!strcmp(s->routes[i].path, path))
			break;
	if (i == MAX_ROUTES) {
		free(body);
		rc = -1;
	} else {
		if (i == s->nroutes)
			s->nroutes++;
		else
			free(s->routes[i].body);
		snprintf(s->routes[i].path, sizeof(s->routes[i].path), "%s", path);
		s->routes[i].r = *r;
		s->routes[i].r.body = NULL;
		s->routes[i].body = body;
	}
	pthread_mutex_unlock(&s->lock);
	return rc;
}

char *ts_read_data(const char *name)
{
	const char *top = getenv("GP_TOP_SRCDIR");
	char path[1024];
	FILE *f;
	char *buf;
	long n;

	snprintf(path, sizeof(path), "%s/tests/data/telemetry/%s", top && *top ? top : GP_SRCDIR,
	         name);
	f = fopen(path, "rb");
	if (!f)
		return NULL;
	if (fseek(f, 0, SEEK_END) < 0 || (n = ftell(f)) < 0) {
		fclose(f);
		return NULL;
	}
	rewind(f);
	buf = malloc((size_t)n + 1);
	if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	if (buf)
		buf[n] = '\0';
	fclose(f);
	return buf;
}

int ts_requests(ts_server_t *s)
{
	int n;

	pthread_mutex_lock(&s->lock);
	n = s->requests;
	pthread_mutex_unlock(&s->lock);
	return n;
}

void ts_last_request(ts_server_t *s, char *line, size_t lsize, char *auth, size_t asize)
{
	pthread_mutex_lock(&s->lock);
	snprintf(line, lsize, "%s", s->last_line);
	snprintf(auth, asize, "%s", s->last_auth);
	pthread_mutex_unlock(&s->lock);
}
