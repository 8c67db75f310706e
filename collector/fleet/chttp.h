/* chttp.h: ClickHouse's HTTP interface, as flyprof push and the fleet queries use it: a URL
 * (http://HOST[:PORT][/DATABASE]), and one query per connection (HTTP/1.1 POST, the query in
 * the URL, the data to insert as the body, "Connection: close"). No TLS, no authentication
 * beyond what the URL's server lets the default user do. Blocking, with a timeout per step;
 * never prints. Any thread. */
#ifndef CHTTP_H
#define CHTTP_H

#include <stddef.h>

#define CHTTP_DEFAULT_PORT "8123"
#define CHTTP_DEFAULT_DB "flyprof"
#define CHTTP_TIMEOUT_MS 60000 /* connect, each send, each receive */

struct chttp_url {
    char url[512];  /* as given, for messages */
    char host[256];
    char port[8];
    char db[128];   /* [A-Za-z0-9_]+ */
    char params[64]; /* more URL parameters, "name=value&..." (settings), or "" */
};

/* Parses url. Returns 0, or -EINVAL with err naming what is wrong. */
int chttp_url_parse(const char *url, struct chttp_url *u, char *err, size_t errlen);

/* Runs query against u (in database u->db unless the query names one; nodb: none, for
 * CREATE DATABASE), with body (may be NULL) as the data of an INSERT. On success returns 0 and
 * the response body in *out (malloc'd, NUL-terminated; *outlen without the NUL; out may be
 * NULL). Fails with -errno and err saying which server and what failed: not reachable (connect
 * refused, name unknown, timeout), or the server's own message when it rejects the query
 * (HTTP status not 200: ClickHouse's "Code: N, e.displayText() = DB::Exception: ..."). */
int chttp_query(const struct chttp_url *u, int nodb, const char *query, const char *body,
                size_t bodylen, char **out, size_t *outlen, char *err, size_t errlen);

/* Appends s to *buf (malloc'd, *len used, *cap allocated) escaped for a TabSeparated field
 * (backslash, tab, newline). Returns 0 or -ENOMEM. */
int chttp_tsv_escape(char **buf, size_t *len, size_t *cap, const char *s);

/* Appends s to *buf as a ClickHouse string literal: in single quotes, with backslash and
 * quote escaped by a backslash. Returns 0 or -ENOMEM. */
int chttp_sql_quote(char **buf, size_t *len, size_t *cap, const char *s);

/* Appends the bytes p[0..n) to *buf. Returns 0 or -ENOMEM. */
int chttp_append(char **buf, size_t *len, size_t *cap, const char *p, size_t n);

#endif
