/* out_hlog.h: HdrHistogram interval logs, format version 1.3, as HdrHistogram's
 * HistogramLogReader and HistogramLogProcessor read them:
 *
 *   #[Histogram log format version 1.3]
 *   #[StartTime: 1700000000.000 (seconds since epoch), Tue Nov 14 22:13:20 UTC 2023]
 *   #[BaseTime: 1700000000.000 (seconds since epoch)]
 *   "StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"
 *   Tag=cpu0,0.000,1.000,0.046,HISTFAAAA...
 *
 * One line per histogram: its tag, start (seconds after BaseTime), length (s), max (ms, as
 * HdrHistogram's writer divides ns by 10^6) and the histogram in HdrHistogram's compressed V2
 * encoding, base64: a big-endian header (cookie 0x1c849314, payload length, normalizing
 * offset 0, significant digits, lowest and highest trackable value, conversion ratio 1.0)
 * then the counts array as ZigZag LEB128 numbers, a run of k > 1 empty buckets written as -k;
 * deflated (zlib) behind a second cookie 0x1c849314 | 1 and the deflated length. Values are
 * ns. Writes into a file the caller names; never prints; any thread, one writer at a time.
 */
#ifndef OUT_HLOG_H
#define OUT_HLOG_H

#include <stddef.h>
#include <stdint.h>

#include "hdr.h"

struct out_hlog;

/* Creates (truncates) path and writes the header: comment as a "#" line when not NULL, the
 * version, StartTime and BaseTime start_ns (ns since the epoch), the legend. Returns 0 with
 * *h set, or -errno with err naming the file. */
int out_hlog_open(struct out_hlog **h, const char *path, uint64_t start_ns, const char *comment,
                  char *err, size_t errlen);

/* Writes one interval line for hist (values in ns): tag (NULL: none; no commas, spaces or
 * line breaks), start and length in ns since the epoch. Flushes the line. Returns 0 or -errno. */
int out_hlog_write(struct out_hlog *h, const char *tag, uint64_t start_ns, uint64_t length_ns,
                   const struct hdr *hist, char *err, size_t errlen);

/* Closes the file (h may be NULL). Returns 0 or -errno when the last writes failed. */
int out_hlog_close(struct out_hlog *h, char *err, size_t errlen);

/* hist in HdrHistogram's compressed V2 encoding, base64 (NUL-terminated, malloc'ed into *out).
 * Returns 0 or -ENOMEM / -EIO (deflate failed). */
int out_hlog_encode(const struct hdr *hist, char **out);

#endif
