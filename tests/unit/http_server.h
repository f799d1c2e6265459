/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * http_server.h - a small scriptable HTTP/1.1 server on 127.0.0.1 for
 * telemetry tests.  One thread accepts and answers connections one at a
 * time (Connection: close).  Each request path gets the response set for it
 * with ts_route() (the route "*" answers every other path); a response can
 * be delayed, truncated, oversized or replaced by closing the connection.
 */
#ifndef GP_TEST_HTTP_SERVER_H
#define GP_TEST_HTTP_SERVER_H

#include <stddef.h>

typedef enum ts_mode {
	TS_NORMAL = 0,          /* status + body */
	TS_TRUNCATE,            /* Content-Length of the full body, send half, close */
	TS_CLOSE,               /* read the request, close without answering */
	TS_OVERSIZE,            /* status 200, a valid-looking body of `oversize` bytes */
} ts_mode_t;

typedef struct ts_response {
	int status;             /* HTTP status code (default 200) */
	const char *body;       /* copied by ts_route(); NULL = "" */
	int delay_ms;           /* wait before answering */
	ts_mode_t mode;
	size_t oversize;        /* body size for TS_OVERSIZE */
} ts_response_t;

typedef struct ts_server ts_server_t;

/* Start on an ephemeral loopback port; NULL on failure.  Stop with ts_stop(). */
ts_server_t *ts_start(void);
/* Stop the thread, close the socket, free everything; NULL is a no-op. */
void ts_stop(ts_server_t *s);
/* "http://127.0.0.1:PORT" (owned by the server). */
const char *ts_url(const ts_server_t *s);
int ts_port(const ts_server_t *s);
/* Set the response for a path ("/redfish/v1/Chassis/n1/Power", or "*");
 * the query string is not part of the match.  0 or -1. */
int ts_route(ts_server_t *s, const char *path, const ts_response_t *r);
/* Read the body of a response from a file under tests/data/telemetry. */
char *ts_read_data(const char *name);
/* Requests answered (or closed) so far. */
int ts_requests(ts_server_t *s);
/* Copy the last request line and its Authorization header value ("" if
 * none) into the given buffers. */
void ts_last_request(ts_server_t *s, char *line, size_t lsize, char *auth, size_t asize);

#endif
