/* fpl_chunk.c: preamble and chunk framing for .fpl files. */
#include "fpl_chunk.h"

#include <errno.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>
#include <zlib.h>

#include "fpl_format.h"

uint32_t fpl_chunk_crc(const uint8_t *p, size_t len)
{
    uLong c = crc32(0L, Z_NULL, 0);
    while (len > 0) {
        uInt n = len > (1u << 30) ? (1u << 30) : (uInt)len;
        c = crc32(c, p, n);
        p += n;
        len -= n;
    }
    return (uint32_t)c;
}

uint32_t fpl_chunk_crc_framed(const uint8_t seq_le[4], const uint8_t *payload, size_t len)
{
    uLong c = crc32(0L, Z_NULL, 0);
    c = crc32(c, seq_le, 4);
    while (len > 0) {
        uInt n = len > (1u << 30) ? (1u << 30) : (uInt)len;
        c = crc32(c, payload, n);
        payload += n;
        len -= n;
    }
    return (uint32_t)c;
}

static void put_le32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)v;
    p[1] = (uint8_t)(v >> 8);
    p[2] = (uint8_t)(v >> 16);
    p[3] = (uint8_t)(v >> 24);
}

/* Writes all iovecs, resuming after short writes and EINTR. */
static int write_all(int fd, struct iovec *iov, int n)
{
    while (n > 0) {
        ssize_t w = writev(fd, iov, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        while (n > 0 && (size_t)w >= iov->iov_len) {
            w -= (ssize_t)iov->iov_len;
            iov++;
            n--;
        }
        if (n > 0) {
            iov->iov_base = (uint8_t *)iov->iov_base + w;
            iov->iov_len -= (size_t)w;
        }
    }
    return 0;
}

/* Writes all iovecs as one piece of the file: when they cannot all be written (a full file
 * system, an I/O error), what was written of them is taken back (the file truncated to where
 * they began, the offset moved back there), so the file never keeps a piece cut short in the
 * middle. Not for an fd that cannot seek (a pipe): there a short piece stays. */
static int write_whole(int fd, struct iovec *iov, int n)
{
    off_t start = lseek(fd, 0, SEEK_CUR);
    int rc = write_all(fd, iov, n);
    if (rc != 0 && start >= 0) {
        int t = ftruncate(fd, start);
        (void)t; /* when it fails the tail stays: the next write, at start, overwrites it */
        (void)lseek(fd, start, SEEK_SET);
    }
    return rc;
}

int fpl_chunk_write_preamble(int fd)
{
    uint8_t p[FPL_PREAMBLE_SIZE] = {0};
    memcpy(p, FPL_MAGIC, 8);
    p[8] = FPL_VERSION & 0xff;
    p[9] = FPL_VERSION >> 8;
    struct iovec iov = {p, sizeof(p)};
    return write_whole(fd, &iov, 1);
}

int fpl_chunk_write(int fd, uint32_t seq, const uint8_t *payload, size_t len)
{
    if (len > FPL_CHUNK_MAX)
        return -EFBIG;
    uint8_t h[FPL_CHUNK_HEADER_SIZE];
    put_le32(h, FPL_CHUNK_SYNC);
    put_le32(h + 4, (uint32_t)len);
    put_le32(h + 12, seq);
    put_le32(h + 8, fpl_chunk_crc_framed(h + 12, payload, len));
    struct iovec iov[2] = {{h, sizeof(h)}, {(void *)payload, len}};
    return write_whole(fd, iov, len ? 2 : 1);
}
