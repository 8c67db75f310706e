/* jfr_enc.c: JFR value encodings (see jfr_enc.h). */
#include "jfr_enc.h"

#include <errno.h>
#include <string.h>

void jfr_enc_int(struct fpl_buf *b, int32_t v)
{
    jfr_enc_long(b, (uint32_t)v);
}

void jfr_enc_byte(struct fpl_buf *b, uint8_t v)
{
    fpl_put_u8(b, v);
}

void jfr_enc_string(struct fpl_buf *b, const char *s, size_t len)
{
    if (!s) {
        fpl_put_u8(b, 0);
    } else if (!len) {
        fpl_put_u8(b, 1);
    } else {
        fpl_put_u8(b, 3);
        jfr_enc_long(b, len);
        fpl_put_bytes(b, s, len);
    }
}

void jfr_enc_cstr(struct fpl_buf *b, const char *s)
{
    jfr_enc_string(b, s, s ? strlen(s) : 0);
}

size_t jfr_enc_long_len(uint64_t v)
{
    size_t n = 1;
    while (n < JFR_ENC_MAX_BYTES && v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

size_t jfr_enc_begin(struct fpl_buf *b)
{
    size_t off = b->len;
    static const uint8_t zero[JFR_ENC_SIZE_BYTES] = {0};
    fpl_put_bytes(b, zero, sizeof(zero));
    return off;
}

int jfr_enc_end(struct fpl_buf *b, size_t off)
{
    if (b->failed)
        return -ENOMEM;
    uint64_t size = b->len - off;
    if (size > JFR_ENC_SIZE_MAX)
        return -EFBIG;
    uint8_t *p = b->data + off;
    for (int i = 0; i < JFR_ENC_SIZE_BYTES; i++) {
        p[i] = (uint8_t)((size >> (7 * i)) & 0x7f);
        if (i < JFR_ENC_SIZE_BYTES - 1)
            p[i] |= 0x80;
    }
    return 0;
}

void jfr_enc_be64(uint8_t *p, uint64_t v)
{
    for (int i = 7; i >= 0; i--) {
        p[i] = (uint8_t)v;
        v >>= 8;
    }
}
