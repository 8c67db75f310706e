/* fpl_chunk.h: framing of the .fpl file: the preamble and checksummed chunks (see
 * fpl_format.h). Used by the agent's writer and by tests that make logs. Any thread.
 */
#ifndef FPL_CHUNK_H
#define FPL_CHUNK_H

#include <stddef.h>
#include <stdint.h>

/* Writes the 16-byte preamble to fd, whole or not at all (as fpl_chunk_write). Returns 0 or
 * -errno. */
int fpl_chunk_write_preamble(int fd);

/* Writes one chunk (header + payload of len bytes, len <= FPL_CHUNK_MAX) to fd with a single
 * writev, retrying short writes. A chunk that cannot be written whole (ENOSPC, EDQUOT, EIO
 * after part of it was written) is taken back: fd's file is truncated to the offset the chunk
 * began at and the offset moved back there, so a later chunk follows the last whole one and no
 * torn chunk is left in the middle of the log (not on a pipe, which cannot seek). Returns 0 or
 * -errno (-EFBIG when len is too large), the errno of the write that failed. */
int fpl_chunk_write(int fd, uint32_t seq, const uint8_t *payload, size_t len);

/* The chunk checksum: CRC-32 of the 4 little-endian bytes of the sequence number followed by
 * the payload. */
uint32_t fpl_chunk_crc_framed(const uint8_t seq_le[4], const uint8_t *payload, size_t len);

/* CRC-32 (zlib polynomial) of a buffer. */
uint32_t fpl_chunk_crc(const uint8_t *p, size_t len);

#endif
