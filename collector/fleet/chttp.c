/* chttp.c: one query over ClickHouse's HTTP interface (chttp.h). */
#include "chttp.h"

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

int chttp_url_parse(const char *url, struct chttp_url *u, char *err, size_t errlen)
{
    memset(u, 0, sizeof(*u));
    if (!url || strlen(url) >= sizeof(u->url)) {
        snprintf(err, errlen, "--db: the URL is %s", url ? "too long" : "missing");
        return -EINVAL;
    }
    snprintf(u->url, sizeof(u->url), "%s", url);
    if (strncmp(url, "http://", 7) != 0) {
        snprintf(err, errlen, "--db %s: give ClickHouse's HTTP interface as http://HOST[:PORT]"
                              "[/DATABASE] (https is not supported)", url);
        return -EINVAL;
    }
    const char *h = url + 7, *end = h + strcspn(h, ":/");
    if (end == h || (size_t)(end - h) >= sizeof(u->host)) {
        snprintf(err, errlen, "--db %s: no host", url);
        return -EINVAL;
    }
    memcpy(u->host, h, (size_t)(end - h));
    snprintf(u->port, sizeof(u->port), CHTTP_DEFAULT_PORT);
    if (*end == ':') {
        const char *p = end + 1;
        size_t n = strspn(p, "0123456789");
        if (n == 0 || n > 5 || atoi(p) <= 0 || atoi(p) > 65535 || (p[n] && p[n] != '/')) {
            snprintf(err, errlen, "--db %s: bad port", url);
            return -EINVAL;
        }
        memcpy(u->port, p, n);
        u->port[n] = 0;
        end = p + n;
    }
    snprintf(u->db, sizeof(u->db), CHTTP_DEFAULT_DB);
    if (*end == '/' && end[1]) {
        const char *d = end + 1;
        size_t n = strlen(d);
        if (d[n - 1] == '/')
            n--;
        if (n == 0 || n >= sizeof(u->db) ||
            strspn(d, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != n) {
            snprintf(err, errlen, "--db %s: the database name after the host may hold letters, "
                                  "digits and '_' only", url);
            return -EINVAL;
        }
        memcpy(u->db, d, n);
        u->db[n] = 0;
    }
    return 0;
}

int chttp_append(char **buf, size_t *len, size_t *cap, const char *p, size_t n)
{
    if (*len + n + 1 > *cap) {
        size_t c = *cap ? *cap : 4096;
        while (*len + n + 1 > c)
            c *= 2;
        char *q = realloc(*buf, c);
        if (!q)
            return -ENOMEM;
        *buf = q;
        *cap = c;
    }
    memcpy(*buf + *len, p, n);
    *len += n;
    (*buf)[*len] = 0;
    return 0;
}

int chttp_sql_quote(char **buf, size_t *len, size_t *cap, const char *s)
{
    int rc = chttp_append(buf, len, cap, "'", 1);
    for (; *s && rc == 0; s++) {
        if (*s == '\'' || *s == '\\')
            rc = chttp_append(buf, len, cap, "\\", 1);
        rc = rc ? rc : chttp_append(buf, len, cap, s, 1);
    }
    return rc ? rc : chttp_append(buf, len, cap, "'", 1);
}

int chttp_tsv_escape(char **buf, size_t *len, size_t *cap, const char *s)
{
    for (; *s; s++) {
        const char *e = *s == '\\' ? "\\\\" : *s == '\t' ? "\\t" : *s == '\n' ? "\\n" : NULL;
        int rc = e ? chttp_append(buf, len, cap, e, 2) : chttp_append(buf, len, cap, s, 1);
        if (rc)
            return rc;
    }
    return 0;
}

/* query percent-encoded for the URL */
static int url_encode(char **buf, size_t *len, size_t *cap, const char *s)
{
    static const char hex[] = "0123456789ABCDEF";
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        char e[3] = {'%', hex[c >> 4], hex[c & 15]};
        int plain = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_' || c == '.' || c == '~';
        int rc = plain ? chttp_append(buf, len, cap, (const char *)&c, 1)
                       : chttp_append(buf, len, cap, e, 3);
        if (rc)
            return rc;
    }
    return 0;
}

static int wait_fd(int fd, short ev)
{
    struct pollfd p = {fd, ev, 0};
    int r;
    do
        r = poll(&p, 1, CHTTP_TIMEOUT_MS);
    while (r < 0 && errno == EINTR);
    return r > 0 ? 0 : r == 0 ? -ETIMEDOUT : -errno;
}

static int connect_to(const struct chttp_url *u, char *err, size_t errlen)
{
    struct addrinfo hints = {0}, *res = NULL;
    hints.ai_socktype = SOCK_STREAM;
    int g = getaddrinfo(u->host, u->port, &hints, &res);
    if (g != 0) {
        snprintf(err, errlen, "cannot reach ClickHouse at %s: %s", u->url, gai_strerror(g));
        return -EHOSTUNREACH;
    }
    int rc = -ECONNREFUSED;
    for (struct addrinfo *a = res; a; a = a->ai_next) {
        int fd = socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
                        a->ai_protocol);
        if (fd < 0) {
            rc = -errno;
            continue;
        }
        if (connect(fd, a->ai_addr, a->ai_addrlen) == 0 ||
            (errno == EINPROGRESS && (rc = wait_fd(fd, POLLOUT)) == 0)) {
            int soerr = 0;
            socklen_t sl = sizeof(soerr);
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl);
            if (soerr == 0) {
                freeaddrinfo(res);
                return fd;
            }
            rc = -soerr;
        } else if (errno != EINPROGRESS) {
            rc = -errno;
        }
        close(fd);
    }
    freeaddrinfo(res);
    snprintf(err, errlen, "cannot reach ClickHouse at %s: %s", u->url, strerror(-rc));
    return rc;
}

static int send_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
            int rc = wait_fd(fd, POLLOUT);
            if (rc)
                return rc;
            continue;
        }
        if (w <= 0)
            return w < 0 ? -errno : -EPIPE;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* The body of a chunked response, decoded in place. Returns its length, or -EPROTO. */
static long dechunk(char *b, size_t n)
{
    size_t in = 0, out = 0;
    for (;;) {
        char *e;
        unsigned long sz = strtoul(b + in, &e, 16);
        char *nl = strstr(e, "\r\n");
        if (e == b + in || !nl)
            return -EPROTO;
        in = (size_t)(nl - b) + 2;
        if (sz == 0)
            return (long)out;
        if (in + sz + 2 > n)
            return -EPROTO;
        memmove(b + out, b + in, sz);
        out += sz;
        in += sz + 2;
    }
}

int chttp_query(const struct chttp_url *u, int nodb, const char *query, const char *body,
                size_t bodylen, char **out, size_t *outlen, char *err, size_t errlen)
{
    char *req = NULL, *resp = NULL;
    size_t rl = 0, rc_ = 0, pl = 0, pc = 0;
    int rc = 0;
    if (out)
        *out = NULL;
    char head[1024];
    snprintf(head, sizeof(head), "POST /?%s%s%s%s%squery=", nodb ? "" : "database=",
             nodb ? "" : u->db, nodb ? "" : "&", u->params, u->params[0] ? "&" : "");
    if (chttp_append(&req, &rl, &rc_, head, strlen(head)) || url_encode(&req, &rl, &rc_, query)) {
        free(req);
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    snprintf(head, sizeof(head),
             " HTTP/1.1\r\nHost: %s:%s\r\nContent-Length: %zu\r\nConnection: close\r\n\r\n",
             u->host, u->port, body ? bodylen : 0);
    if (chttp_append(&req, &rl, &rc_, head, strlen(head))) {
        free(req);
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    int fd = connect_to(u, err, errlen);
    if (fd < 0) {
        free(req);
        return fd;
    }
    rc = send_all(fd, req, rl);
    if (rc == 0 && body && bodylen)
        rc = send_all(fd, body, bodylen);
    free(req);
    while (rc == 0) {
        char b[65536];
        ssize_t n = recv(fd, b, sizeof(b), 0);
        if (n < 0 && (errno == EAGAIN || errno == EINTR)) {
            rc = wait_fd(fd, POLLIN);
            continue;
        }
        if (n < 0)
            rc = -errno;
        else if (n == 0)
            break;
        else if (chttp_append(&resp, &pl, &pc, b, (size_t)n))
            rc = -ENOMEM;
    }
    close(fd);
    if (rc) {
        snprintf(err, errlen, "ClickHouse at %s: the query failed in transit: %s", u->url,
                 strerror(-rc));
        free(resp);
        return rc;
    }
    char *hdr_end = resp ? strstr(resp, "\r\n\r\n") : NULL;
    int status = 0;
    if (!hdr_end || sscanf(resp, "HTTP/1.%*d %d", &status) != 1) {
        snprintf(err, errlen, "%s does not answer as ClickHouse's HTTP interface does", u->url);
        free(resp);
        return -EPROTO;
    }
    *hdr_end = 0;
    char *b = hdr_end + 4;
    long blen = (long)(pl - (size_t)(b - resp));
    if (strcasestr(resp, "\r\nTransfer-Encoding: chunked"))
        blen = dechunk(b, (size_t)blen);
    if (blen < 0) {
        snprintf(err, errlen, "%s: a response that does not decode", u->url);
        free(resp);
        return -EPROTO;
    }
    b[blen] = 0;
    if (status != 200) {
        /* ClickHouse's message: "Code: 62, e.displayText() = DB::Exception: ..." */
        char *nl = strchr(b, '\n');
        if (nl && nl[1] == 0)
            *nl = 0;
        snprintf(err, errlen, "ClickHouse at %s rejected the query (HTTP %d): %.400s", u->url,
                 status, b);
        free(resp);
        return -EREMOTEIO;
    }
    if (out) {
        memmove(resp, b, (size_t)blen + 1);
        *out = resp;
        if (outlen)
            *outlen = (size_t)blen;
    } else {
        free(resp);
    }
    return 0;
}
