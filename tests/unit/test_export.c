/* test_export.c: the exports' encodings: HdrHistogram's compressed V2 histogram (decoded here
 * field by field: cookies, header, ZigZag LEB128 counts with runs of zeros), the .hlog and CSV
 * files, InfluxDB lines. The real readers (HdrHistogram's Java HistogramLogReader, InfluxDB) are in
 * tests/integration/test_jitter.py. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "export.h"
#include "harness.h"
#include "out_csv.h"
#include "out_hlog.h"
#include "out_influx.h"
#include "slurp.h"

static uint32_t be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static uint64_t be64(const unsigned char *p)
{
    return (uint64_t)be32(p) << 32 | be32(p + 4);
}

static int b64val(char c)
{
    const char *a = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const char *p = strchr(a, c);
    return c && p ? (int)(p - a) : -1;
}

/* Decodes base64 (with padding) into out; returns the length or -1. */
static long unb64(const char *s, unsigned char *out, size_t cap)
{
    size_t n = strlen(s), j = 0;
    if (n % 4)
        return -1;
    for (size_t i = 0; i < n; i += 4) {
        int v[4];
        for (int k = 0; k < 4; k++)
            v[k] = s[i + k] == '=' ? 0 : b64val(s[i + k]);
        if (v[0] < 0 || v[1] < 0 || v[2] < 0 || v[3] < 0 || j + 3 > cap)
            return -1;
        uint32_t w = (uint32_t)v[0] << 18 | (uint32_t)v[1] << 12 | (uint32_t)v[2] << 6 | v[3];
        out[j++] = (unsigned char)(w >> 16);
        if (s[i + 2] != '=')
            out[j++] = (unsigned char)(w >> 8);
        if (s[i + 3] != '=')
            out[j++] = (unsigned char)w;
    }
    return (long)j;
}

/* HdrHistogram's LEB128-64b9B ZigZag decoding. */
static int64_t zigzag(const unsigned char **p)
{
    uint64_t v = 0;
    int shift = 0;
    for (int i = 0; i < 9; i++) {
        unsigned char b = *(*p)++;
        if (i == 8) {
            v |= (uint64_t)b << 56;
            break;
        }
        v |= (uint64_t)(b & 0x7f) << shift;
        shift += 7;
        if (!(b & 0x80))
            break;
    }
    return (int64_t)(v >> 1) ^ -(int64_t)(v & 1);
}

static void test_v2_encoding(void)
{
    static struct hdr h, back;
    static unsigned char z[1 << 16], raw[1 << 17];
    hdr_reset(&h);
    hdr_record(&h, 3, 1);
    hdr_record(&h, 4, 1); /* adjacent non-zero counts */
    hdr_record(&h, 6, 1); /* a single zero between */
    hdr_record(&h, 1000, 300);
    hdr_record(&h, 123456789, 1ull << 40); /* a count needing 6 LEB128 bytes */
    hdr_record(&h, 2500000000ull, 7);
    char *enc = NULL;
    CHECK(out_hlog_encode(&h, &enc) == 0);
    CHECK(enc && strncmp(enc, "HISTFAAA", 8) == 0); /* cookie 0x1c849314 in base64 */
    long zn = unb64(enc, z, sizeof(z));
    CHECK(zn > 8);
    CHECK_EQ_U(be32(z), 0x1c849314u);
    CHECK_EQ_U(be32(z + 4), (uint64_t)zn - 8);
    uLongf rn = sizeof(raw);
    CHECK(uncompress(raw, &rn, z + 8, (uLong)(zn - 8)) == Z_OK);
    CHECK_EQ_U(be32(raw), 0x1c849313u);
    CHECK_EQ_U(be32(raw + 4), rn - 40);
    CHECK_EQ_U(be32(raw + 8), 0);
    CHECK_EQ_U(be32(raw + 12), 2);
    CHECK_EQ_U(be64(raw + 16), 1);
    CHECK_EQ_U(be64(raw + 24), 3600000000000ull);
    CHECK_EQ_U(be64(raw + 32), 0x3ff0000000000000ull); /* 1.0 */
    hdr_reset(&back);
    const unsigned char *p = raw + 40, *end = raw + rn;
    unsigned idx = 0;
    int ok = 1, saw_single_zero = 0;
    while (p < end && idx < FPL_HDR_COUNTS) {
        int64_t c = zigzag(&p);
        if (c < 0) {
            idx += (unsigned)-c;
        } else {
            if (c == 0)
                saw_single_zero = 1;
            back.counts[idx++] = (uint64_t)c;
        }
    }
    CHECK(p == end);
    CHECK(saw_single_zero);
    CHECK_EQ_U(idx, fpl_hdr_index(2500000000ull) + 1);
    for (unsigned i = 0; i < FPL_HDR_COUNTS; i++)
        ok &= back.counts[i] == h.counts[i];
    CHECK(ok);
    free(enc);

    static struct hdr empty;
    hdr_reset(&empty);
    CHECK(out_hlog_encode(&empty, &enc) == 0);
    zn = unb64(enc, z, sizeof(z));
    rn = sizeof(raw);
    CHECK(zn > 8 && uncompress(raw, &rn, z + 8, (uLong)(zn - 8)) == Z_OK);
    CHECK_EQ_U(rn, 40); /* the header alone */
    free(enc);
}

static void test_files(void)
{
    char dir[] = "/tmp/test_export-XXXXXX", path[256], err[512];
    CHECK(mkdtemp(dir) != NULL);
    static struct hdr h;
    hdr_reset(&h);
    for (uint64_t v = 1; v <= 1000; v++)
        hdr_record(&h, v * 1000, 1);
    struct export_point pt = {
        "cpu1", 1700000000123000000ull, 1000000000ull, &h, 1700000000623000000ull, 1.25, -1, 2.5};

    snprintf(path, sizeof(path), "%s/a.hlog", dir);
    struct out_hlog *hl = NULL;
    CHECK(out_hlog_open(&hl, path, 1700000000000000000ull, "made by test_export", err,
                        sizeof(err)) == 0);
    CHECK(out_hlog_write(hl, "cpu1", pt.start_ns, pt.length_ns, &h, err, sizeof(err)) == 0);
    CHECK(out_hlog_close(hl, err, sizeof(err)) == 0);
    char *s = slurp(path);
    CHECK(s && strncmp(s,
                       "#made by test_export\n#[Histogram log format version 1.3]\n"
                       "#[StartTime: 1700000000.000 (seconds since epoch), ",
                       100) == 0);
    CHECK(s && strstr(s, "\n#[BaseTime: 1700000000.000 (seconds since epoch)]\n"
                         "\"StartTimestamp\",\"Interval_Length\",\"Interval_Max\","
                         "\"Interval_Compressed_Histogram\"\n"
                         "Tag=cpu1,0.123,1.000,1.000,HISTFAAA"));
    free(s);

    /* a base with a part below the millisecond: a start reads back less than 1 ms early (the
     * start's own truncation), not two truncations' worth (0.123 for 0.1245) */
    CHECK(out_hlog_open(&hl, path, 1700000000000900000ull, NULL, err, sizeof(err)) == 0);
    CHECK(out_hlog_write(hl, NULL, 1700000000124500000ull, pt.length_ns, &h, err,
                         sizeof(err)) == 0);
    /* the next interval, 0.9999 s long: its end is cut as the next start will be (2.124) */
    CHECK(out_hlog_write(hl, NULL, 1700000001124500000ull, 999900000ull, &h, err,
                         sizeof(err)) == 0);
    CHECK(out_hlog_close(hl, err, sizeof(err)) == 0);
    s = slurp(path);
    CHECK(s && strstr(s, "\n#[BaseTime: 1700000000.000 (seconds since epoch)]\n"));
    CHECK(s && strstr(s, "\n0.124,1.000,1.000,HISTFAAA"));
    CHECK(s && strstr(s, "\n1.124,1.000,1.000,HISTFAAA"));
    free(s);

    snprintf(path, sizeof(path), "%s/a.csv", dir);
    struct out_csv *c = NULL;
    CHECK(out_csv_open(&c, path, err, sizeof(err)) == 0);
    CHECK(out_csv_write(c, &pt, err, sizeof(err)) == 0);
    CHECK(out_csv_close(c, err, sizeof(err)) == 0);
    s = slurp(path);
    /* p50 of 1..1000 us is the 500th value; p99.9 the 999th; each the top of its bucket */
    char want[512];
    snprintf(want, sizeof(want),
             "time,probe,count,p50_ns,p99_ns,p999_ns,max_ns,max_time,stalled_pct,gc_ms,"
             "safepoint_ms\n1700000000123000000,cpu1,1000,%llu,%llu,%llu,1000000,"
             "1700000000623000000,1.250,,2.500\n",
             (unsigned long long)fpl_hdr_highest(fpl_hdr_index(500000)),
             (unsigned long long)fpl_hdr_highest(fpl_hdr_index(990000)),
             (unsigned long long)fpl_hdr_highest(fpl_hdr_index(999000)));
    CHECK(s && strcmp(s, want) == 0);
    if (s && strcmp(s, want) != 0)
        fprintf(stderr, "got:\n%swant:\n%s", s, want);
    free(s);

    /* a file that cannot be created is an error naming it, and leaves nothing behind */
    struct exporter *e = NULL;
    char bad[300], good[300];
    snprintf(good, sizeof(good), "%s/b.hlog", dir);
    snprintf(bad, sizeof(bad), "%s/missing/b.csv", dir);
    struct export_opts eo = {good, bad, NULL, "jitter", NULL, 0};
    CHECK(export_open(&e, &eo, err, sizeof(err)) < 0);
    CHECK(strstr(err, "missing/b.csv") != NULL);
    CHECK(access(good, F_OK) != 0);
    struct export_opts eu = {NULL, NULL, "gopher://x:70", "jitter", NULL, 0};
    CHECK(export_open(&e, &eu, err, sizeof(err)) == -22);
    CHECK(strstr(err, "unknown URL scheme") != NULL);
    struct export_opts ed = {NULL, NULL, "http://127.0.0.1:8086/write", "jitter", NULL, 0};
    CHECK(export_open(&e, &ed, err, sizeof(err)) == -22); /* no db= */
    CHECK(strstr(err, "db=NAME") != NULL);

    snprintf(path, sizeof(path), "rm -rf %s", dir);
    CHECK(system(path) == 0);
}

static void test_influx_line(void)
{
    static struct hdr h;
    hdr_reset(&h);
    hdr_record(&h, 100, 3);
    hdr_record(&h, 5000, 1);
    struct export_point pt = {
        "cpu 0,x=y", 1700000000000000001ull, 1000000000ull, &h, 1700000000000000123ull, 0.5, 12.25,
        -1};
    char line[512];
    size_t n = out_influx_line("jit ter=", "host,a", &pt, line, sizeof(line));
    const char *want = "jit\\ ter=,host=host\\,a,probe=cpu\\ 0\\,x\\=y count=4i,p50=100i,"
                       "p99=5000i,p999=5000i,max=5000i,max_time=1700000000000000123i,"
                       "stalled_pct=0.5000,gc_ms=12.250 1700000000000000001";
    CHECK(strcmp(line, want) == 0);
    if (strcmp(line, want) != 0)
        fprintf(stderr, "got  %s\nwant %s\n", line, want);
    CHECK_EQ_U(n, strlen(want));
    char tiny[20];
    CHECK_EQ_U(out_influx_line("jit ter=", "host,a", &pt, tiny, sizeof(tiny)), strlen(want));
    CHECK(strlen(tiny) == sizeof(tiny) - 1);
}

int main(void)
{
    test_v2_encoding();
    test_files();
    test_influx_line();
    return harness_result("test_export");
}
