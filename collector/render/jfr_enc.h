/* jfr_enc.h: the value encodings of the JFR file format (version 2), into a growable buffer
 * (fpl_buf: a failed allocation sets `failed` and later writes are ignored, so a caller checks
 * once at the end).
 *
 * - integers (byte aside: short, int, long, char, type ids, constant-pool keys, sizes) are
 *   unsigned LEB128 of their 64-bit two's complement, 7 bits a byte, at most 9 bytes: the
 *   ninth byte carries 8 bits, so any 64-bit value fits in 9;
 * - a boolean or a byte is one raw byte;
 * - a string is an encoding byte and its data: 0 null, 1 "", 3 UTF-8 (a length in bytes, then
 *   the bytes). The readers also know 2 (a constant-pool key), 4 (UTF-16 units) and 5
 *   (Latin-1); flyprof writes UTF-8 only;
 * - an event or a checkpoint starts with its size in bytes, the size field included. A size
 *   that is only known afterwards is written in JFR_ENC_SIZE_BYTES bytes, padded (a LEB128
 *   whose leading groups carry the continuation bit): readers decode it as any LEB128.
 * Any thread; nothing is shared.
 */
#ifndef JFR_ENC_H
#define JFR_ENC_H

#include <stddef.h>
#include <stdint.h>

#include "fpl_codec.h"

#define JFR_ENC_SIZE_BYTES 4                /* a padded size field */
#define JFR_ENC_SIZE_MAX ((1ull << 28) - 1) /* the largest size it holds */
#define JFR_ENC_MAX_BYTES 9                 /* the longest integer */

/* Appends v as a JFR integer. Inline: a JFR file is mostly integers (an event is five). */
static inline void jfr_enc_long(struct fpl_buf *b, uint64_t v)
{
    if (fpl_buf_reserve(b, JFR_ENC_MAX_BYTES) != 0)
        return;
    uint8_t *p = b->data + b->len;
    size_t n = 0;
    while (n < JFR_ENC_MAX_BYTES - 1 && v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v; /* the ninth byte keeps all 8 of the remaining bits */
    b->len += n;
}

/* Appends a 32-bit value as a JFR int: negative values as their 32-bit two's complement (5
 * bytes for -1), which the readers narrow back to the same int. */
void jfr_enc_int(struct fpl_buf *b, int32_t v);

/* Appends one raw byte (a boolean or a byte). */
void jfr_enc_byte(struct fpl_buf *b, uint8_t v);

/* Appends s[0..len) as a UTF-8 string ("" as the empty string's own encoding); the bytes must
 * be valid UTF-8. NULL: the null string. */
void jfr_enc_string(struct fpl_buf *b, const char *s, size_t len);

/* jfr_enc_string of a NUL-terminated string (NULL: null). */
void jfr_enc_cstr(struct fpl_buf *b, const char *s);

/* The bytes jfr_enc_long takes for v. */
size_t jfr_enc_long_len(uint64_t v);

/* Reserves a padded size field at the end of b; returns its offset for jfr_enc_end. */
size_t jfr_enc_begin(struct fpl_buf *b);

/* Fills the size field at off with the bytes from off to the end of b. Returns 0, or -EFBIG
 * when they are more than JFR_ENC_SIZE_MAX. */
int jfr_enc_end(struct fpl_buf *b, size_t off);

/* Writes v big-endian into 8 bytes at p (the chunk header's fields). */
void jfr_enc_be64(uint8_t *p, uint64_t v);

#endif
