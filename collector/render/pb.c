/* pb.c: protocol buffers wire-format encoder (see pb.h). */
#include "pb.h"

#include <string.h>

void pb_bytes(struct fpl_buf *b, uint32_t field, const void *p, size_t n)
{
    pb_tag(b, field, PB_WIRE_LEN);
    pb_varint(b, n);
    fpl_put_bytes(b, p, n);
}

void pb_string(struct fpl_buf *b, uint32_t field, const char *s)
{
    pb_bytes(b, field, s, strlen(s));
}

size_t pb_begin(struct fpl_buf *b, uint32_t field)
{
    pb_tag(b, field, PB_WIRE_LEN);
    fpl_put_u8(b, 0);
    return b->len;
}

void pb_end(struct fpl_buf *b, size_t mark)
{
    if (b->failed || mark == 0 || mark > b->len)
        return;
    size_t len = b->len - mark;
    if (len < 0x80) {
        b->data[mark - 1] = (uint8_t)len;
        return;
    }
    uint8_t t[PB_VARINT_MAX];
    size_t n = pb_varint_encode(t, len);
    if (fpl_buf_reserve(b, n - 1) != 0)
        return;
    memmove(b->data + mark + n - 1, b->data + mark, len);
    memcpy(b->data + mark - 1, t, n);
    b->len += n - 1;
}
