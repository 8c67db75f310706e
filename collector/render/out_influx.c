/* out_influx.c: InfluxDB line protocol over HTTP or UDP (out_influx.h). */
#include "out_influx.h"

#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#define HTTP_BATCH (256u << 10)
#define UDP_DATAGRAM 1400u
#define MAX_AGE_NS 5000000000ull
#define IO_TIMEOUT_S 5

struct out_influx {
    int udp;
    int fd; /* UDP: connected socket */
    char host[256], port[16];
    char target[1024]; /* HTTP: path and query */
    char url[1100];
    char measurement[64];
    char hostname[256]; /* the host tag */
    struct sockaddr_storage addr;
    socklen_t addrlen;
    int family, socktype, protocol;
    char *buf; /* lines not sent yet */
    size_t len, cap;
    uint64_t first_ns; /* CLOCK_MONOTONIC when the batch began */
};

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Splits "host[:port]rest" (host may be "[v6]") into host, port (default dflt) and rest. */
static int split_hostport(const char *s, char *host, size_t hlen, char *port, size_t plen,
                          const char *dflt, const char **rest)
{
    const char *h = s, *he;
    if (*s == '[') {
        h = s + 1;
        he = strchr(h, ']');
        if (!he)
            return -EINVAL;
        s = he + 1;
    } else {
        he = s + strcspn(s, ":/?");
        s = he;
    }
    if (he == h || (size_t)(he - h) >= hlen)
        return -EINVAL;
    memcpy(host, h, (size_t)(he - h));
    host[he - h] = 0;
    if (*s == ':') {
        s++;
        size_t n = strspn(s, "0123456789");
        if (n == 0 || n >= plen || atoi(s) < 1 || atoi(s) > 65535)
            return -EINVAL;
        memcpy(port, s, n);
        port[n] = 0;
        s += n;
    } else {
        snprintf(port, plen, "%s", dflt);
    }
    *rest = s;
    return 0;
}

static int http_post(struct out_influx *x, const char *body, size_t n, char *err, size_t errlen);

/* A socket connected to the resolved address, with send and receive timeouts. */
static int connect_to(struct out_influx *x, int *fd_out)
{
    int fd = socket(x->family, x->socktype | SOCK_CLOEXEC, x->protocol);
    if (fd < 0)
        return -errno;
    struct timeval tv = {IO_TIMEOUT_S, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    if (connect(fd, (struct sockaddr *)&x->addr, x->addrlen) != 0) {
        int e = errno;
        close(fd);
        return -e;
    }
    *fd_out = fd;
    return 0;
}

int out_influx_open(struct out_influx **xp, const char *url, const char *measurement, char *err,
                    size_t errlen)
{
    const char *rest;
    int rc;
    struct out_influx *x = calloc(1, sizeof(*x));
    if (!x) {
        snprintf(err, errlen, "out of memory");
        return -ENOMEM;
    }
    x->fd = -1;
    snprintf(x->url, sizeof(x->url), "%s", url);
    snprintf(x->measurement, sizeof(x->measurement), "%s", measurement);
    if (gethostname(x->hostname, sizeof(x->hostname) - 1) != 0 || !x->hostname[0])
        snprintf(x->hostname, sizeof(x->hostname), "unknown");
    if (strncmp(url, "http://", 7) == 0) {
        rc = split_hostport(url + 7, x->host, sizeof(x->host), x->port, sizeof(x->port), "8086",
                            &rest);
        if (rc == 0 && (*rest != '/' || !strstr(rest, "db=") || strlen(rest) >= sizeof(x->target)))
            rc = -EINVAL;
        if (rc) {
            snprintf(err, errlen, "bad InfluxDB URL '%s': use http://HOST:PORT/write?db=NAME", url);
            goto fail;
        }
        snprintf(x->target, sizeof(x->target), "%s", rest);
    } else if (strncmp(url, "udp://", 6) == 0) {
        x->udp = 1;
        rc = split_hostport(url + 6, x->host, sizeof(x->host), x->port, sizeof(x->port), "8089",
                            &rest);
        if (rc == 0 && *rest && strcmp(rest, "/") != 0)
            rc = -EINVAL;
        if (rc) {
            snprintf(err, errlen, "bad InfluxDB URL '%s': use udp://HOST:PORT", url);
            goto fail;
        }
    } else {
        const char *colon = strstr(url, "://");
        rc = -EINVAL;
        snprintf(err, errlen,
                 "unknown URL scheme in '%s'%s%.*s%s: use http://HOST:PORT/write?db=NAME or "
                 "udp://HOST:PORT",
                 url, colon ? " ('" : "", colon ? (int)(colon - url) : 0, url, colon ? "')" : "");
        goto fail;
    }
    struct addrinfo hints = {0}, *ai = NULL;
    hints.ai_socktype = x->udp ? SOCK_DGRAM : SOCK_STREAM;
    int g = getaddrinfo(x->host, x->port, &hints, &ai);
    if (g != 0) {
        rc = g == EAI_SYSTEM ? -errno : -EHOSTUNREACH;
        snprintf(err, errlen, "InfluxDB at '%s': cannot resolve '%s': %s", url, x->host,
                 gai_strerror(g));
        goto fail;
    }
    memcpy(&x->addr, ai->ai_addr, ai->ai_addrlen);
    x->addrlen = ai->ai_addrlen;
    x->family = ai->ai_family;
    x->socktype = ai->ai_socktype;
    x->protocol = ai->ai_protocol;
    freeaddrinfo(ai);
    if (x->udp) {
        if ((rc = connect_to(x, &x->fd)) != 0) {
            snprintf(err, errlen, "InfluxDB at '%s': cannot use %s port %s: %s", url, x->host,
                     x->port, strerror(-rc));
            goto fail;
        }
    } else if ((rc = http_post(x, "", 0, err, errlen)) != 0) {
        /* an empty write: InfluxDB answers 204, or 404 when the database does not exist */
        goto fail;
    }
    *xp = x;
    return 0;
fail:
    free(x);
    return rc;
}

/* Appends an escaped name: the line protocol escapes ',' and ' ' in measurements, and '='
 * too in tag keys and values (tag set). */
static size_t put_tag(char *buf, size_t len, size_t at, const char *v, int tag)
{
    for (; *v; v++) {
        if (*v == ',' || *v == ' ' || (tag && *v == '=')) {
            if (at + 1 < len)
                buf[at] = '\\';
            at++;
        }
        if (at + 1 < len)
            buf[at] = *v;
        at++;
    }
    if (len)
        buf[at < len ? at : len - 1] = 0;
    return at;
}

size_t out_influx_line(const char *measurement, const char *host, const struct export_point *p,
                       char *buf, size_t len)
{
    const struct hdr *h = p->hist;
    size_t n = put_tag(buf, len, 0, measurement, 0);
    n += (size_t)snprintf(n < len ? buf + n : NULL, n < len ? len - n : 0, ",host=");
    n = put_tag(buf, len, n, host, 1);
    n += (size_t)snprintf(n < len ? buf + n : NULL, n < len ? len - n : 0, ",probe=");
    n = put_tag(buf, len, n, p->probe, 1);
    n += (size_t)snprintf(n < len ? buf + n : NULL, n < len ? len - n : 0,
                          " count=%llui,p50=%llui,p99=%llui,p999=%llui,max=%llui,"
                          "max_time=%llui,stalled_pct=%.4f",
                          (unsigned long long)h->total, (unsigned long long)hdr_percentile(h, 50),
                          (unsigned long long)hdr_percentile(h, 99),
                          (unsigned long long)hdr_percentile(h, 99.9), (unsigned long long)h->max,
                          (unsigned long long)p->max_time_ns, p->stalled_pct);
    if (p->gc_ms >= 0)
        n += (size_t)snprintf(n < len ? buf + n : NULL, n < len ? len - n : 0, ",gc_ms=%.3f",
                              p->gc_ms);
    if (p->safepoint_ms >= 0)
        n += (size_t)snprintf(n < len ? buf + n : NULL, n < len ? len - n : 0, ",safepoint_ms=%.3f",
                              p->safepoint_ms);
    n += (size_t)snprintf(n < len ? buf + n : NULL, n < len ? len - n : 0, " %llu",
                          (unsigned long long)p->start_ns);
    return n;
}

/* Writes all of p[0..n) to fd. */
static int send_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = send(fd, p, n, MSG_NOSIGNAL);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* POSTs buf[0..n) and checks the reply's status. */
static int http_post(struct out_influx *x, const char *body, size_t n, char *err, size_t errlen)
{
    char head[1600], reply[512];
    int fd, rc = connect_to(x, &fd);
    if (rc) {
        snprintf(err, errlen, "InfluxDB at '%s': cannot connect to %s port %s: %s", x->url, x->host,
                 x->port, strerror(-rc));
        return rc;
    }
    int hl = snprintf(head, sizeof(head),
                      "POST %s HTTP/1.1\r\nHost: %s:%s\r\nUser-Agent: flyprof\r\n"
                      "Content-Type: text/plain; charset=utf-8\r\nContent-Length: %zu\r\n"
                      "Connection: close\r\n\r\n",
                      x->target, x->host, x->port, n);
    rc = send_all(fd, head, (size_t)hl);
    if (!rc)
        rc = send_all(fd, body, n);
    size_t got = 0;
    while (!rc && got < sizeof(reply) - 1) {
        ssize_t r = recv(fd, reply + got, sizeof(reply) - 1 - got, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            rc = -errno;
        if (r <= 0)
            break;
        got += (size_t)r;
    }
    close(fd);
    reply[got] = 0;
    if (rc) {
        snprintf(err, errlen, "InfluxDB at '%s': sending: %s", x->url, strerror(-rc));
        return rc;
    }
    int status = 0;
    if (sscanf(reply, "HTTP/%*d.%*d %d", &status) != 1 || status < 200 || status > 299) {
        const char *body_at = strstr(reply, "\r\n\r\n");
        char *nl = strchr(reply, '\r');
        if (nl)
            *nl = 0;
        snprintf(err, errlen, "InfluxDB at '%s' refused the points: %s%s%.200s", x->url,
                 got ? reply : "no reply", body_at ? ": " : "", body_at ? body_at + 4 : "");
        size_t l = strlen(err);
        while (l && (err[l - 1] == '\n' || err[l - 1] == '\r' || err[l - 1] == ' '))
            err[--l] = 0;
        return -EPROTO;
    }
    return 0;
}

int out_influx_flush(struct out_influx *x, char *err, size_t errlen)
{
    if (!x || !x->len)
        return 0;
    int rc = 0;
    if (!x->udp) {
        rc = http_post(x, x->buf, x->len, err, errlen);
    } else {
        /* whole lines per datagram */
        size_t at = 0;
        while (at < x->len && !rc) {
            size_t end = at, next;
            while (end < x->len) {
                const char *nl = memchr(x->buf + end, '\n', x->len - end);
                next = nl ? (size_t)(nl - x->buf) + 1 : x->len;
                if (next - at > UDP_DATAGRAM && end > at)
                    break;
                end = next;
            }
            if (send(x->fd, x->buf + at, end - at, MSG_NOSIGNAL) < 0) {
                rc = -errno;
                snprintf(err, errlen, "InfluxDB at '%s': sending: %s", x->url, strerror(-rc));
            }
            at = end;
        }
    }
    x->len = 0;
    return rc;
}

int out_influx_write(struct out_influx *x, const struct export_point *p, char *err, size_t errlen)
{
    char line[1024];
    size_t n = out_influx_line(x->measurement, x->hostname, p, line, sizeof(line));
    if (n >= sizeof(line) - 1) {
        snprintf(err, errlen, "InfluxDB line too long for probe '%s'", p->probe);
        return -EOVERFLOW;
    }
    line[n++] = '\n';
    if (x->len + n > x->cap) {
        size_t cap = x->cap ? x->cap * 2 : 16384;
        while (cap < x->len + n)
            cap *= 2;
        char *b = realloc(x->buf, cap);
        if (!b) {
            snprintf(err, errlen, "out of memory");
            return -ENOMEM;
        }
        x->buf = b;
        x->cap = cap;
    }
    if (!x->len)
        x->first_ns = mono_ns();
    memcpy(x->buf + x->len, line, n);
    x->len += n;
    if (x->len >= (x->udp ? UDP_DATAGRAM : HTTP_BATCH) || mono_ns() - x->first_ns >= MAX_AGE_NS)
        return out_influx_flush(x, err, errlen);
    return 0;
}

int out_influx_close(struct out_influx *x, char *err, size_t errlen)
{
    if (!x)
        return 0;
    int rc = out_influx_flush(x, err, errlen);
    if (x->fd >= 0)
        close(x->fd);
    free(x->buf);
    free(x);
    return rc;
}
