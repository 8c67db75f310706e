/* pb.h: a small encoder of the protocol buffers wire format, enough for pprof's profile.proto:
 * varint fields (uint64, int64, bool, enums), length-delimited fields (strings, bytes,
 * submessages, packed repeated scalars), written into an fpl_buf (fpl_codec.h).
 *
 * Why our own and not Debian's protobuf-c: protobuf-c encodes a message tree that must first
 * be built in memory, one malloc'd struct per sample, location and function plus pointer
 * arrays, and needs protoc-c at build time and libprotobuf-c at run time -- in the agent too,
 * which renders pprof inside the JVM at stop. The pprof writer instead streams: it encodes each
 * sample straight into a buffer that is deflated as it fills, so its memory follows the unique
 * stacks and methods, not the samples. The wire format it needs is small and frozen (varints,
 * tags, length prefixes), and this file is all of it.
 *
 * Wire format, as used here: a field is a tag varint (field number << 3 | wire type) and a
 * value: a varint for wire type 0; for wire type 2, a varint byte length and that many bytes.
 * Varints are LEB128 (7 bits per byte, least significant first) in their shortest form; an
 * int64 is written as its two's-complement uint64 (a negative value takes 10 bytes). A
 * submessage is a length-delimited field whose bytes are the submessage's fields. A packed
 * repeated scalar field is one length-delimited field holding the varints back to back. A
 * message's fields may come in any order and a repeated field's elements need not be
 * adjacent; the writer still emits fields in field-number order where it can.
 *
 * Errors follow fpl_buf: an allocation failure sets b->failed and later writes are ignored;
 * callers check once. Not for signal handlers (may realloc). Any thread, one buffer per thread.
 */
#ifndef PB_H
#define PB_H

#include <stddef.h>
#include <stdint.h>

#include "fpl_codec.h"

enum pb_wire {
    PB_WIRE_VARINT = 0,
    PB_WIRE_LEN = 2,
};

#define PB_VARINT_MAX 10 /* bytes in the longest varint */

/* The bytes of v as a varint, into out (PB_VARINT_MAX bytes); returns their count. */
static inline size_t pb_varint_encode(uint8_t *out, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        out[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    out[n++] = (uint8_t)v;
    return n;
}

/* The number of bytes of v as a varint. */
static inline size_t pb_varint_size(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

/* Appends v as a bare varint (an element of a packed field, or a tag). */
static inline void pb_varint(struct fpl_buf *b, uint64_t v)
{
    if (fpl_buf_reserve(b, PB_VARINT_MAX) == 0)
        b->len += pb_varint_encode(b->data + b->len, v);
}

/* Appends the tag of field number `field` (1 .. 2^29 - 1) with wire type `wire`. */
static inline void pb_tag(struct fpl_buf *b, uint32_t field, enum pb_wire wire)
{
    pb_varint(b, (uint64_t)field << 3 | (uint64_t)wire);
}

/* A uint64 (or bool, or enum) field, written even when 0. */
static inline void pb_uint64(struct fpl_buf *b, uint32_t field, uint64_t v)
{
    pb_tag(b, field, PB_WIRE_VARINT);
    pb_varint(b, v);
}

/* An int64 field, written even when 0: two's complement, so a negative value takes 10 bytes. */
static inline void pb_int64(struct fpl_buf *b, uint32_t field, int64_t v)
{
    pb_uint64(b, field, (uint64_t)v);
}

/* A uint64 field, left out when 0 (proto3's default: a reader sees 0 either way). */
static inline void pb_uint64_opt(struct fpl_buf *b, uint32_t field, uint64_t v)
{
    if (v)
        pb_uint64(b, field, v);
}

/* A length-delimited field with n bytes of content (a string or bytes field, or a submessage
 * or packed field encoded elsewhere). */
void pb_bytes(struct fpl_buf *b, uint32_t field, const void *p, size_t n);

/* A string field (NUL-terminated s, which may be empty; the bytes go as they are). */
void pb_string(struct fpl_buf *b, uint32_t field, const char *s);

/* Opens a length-delimited field (a submessage, or a packed repeated field) of number
 * `field`: writes its tag and reserves one byte for the length. Write the content, then call
 * pb_end with the returned mark. Opened fields nest: close the innermost first. */
size_t pb_begin(struct fpl_buf *b, uint32_t field);

/* Closes the field opened at mark: writes the content's length in front of it, moving the
 * content when the length needs more than one byte (content of 128 bytes or more). */
void pb_end(struct fpl_buf *b, size_t mark);

#endif
