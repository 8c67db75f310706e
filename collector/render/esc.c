/* esc.c: text escaped for the outputs that quote names (see esc.h). */
#include "esc.h"

#include <stdio.h>
#include <string.h>

static void put_cstr(struct fpl_buf *b, const char *s)
{
    fpl_put_bytes(b, s, strlen(s));
}

/* Decodes one UTF-8 (or CESU-8 surrogate, as in JVM modified UTF-8) sequence at s[0..len).
 * Returns its length and the code point in *cp; 1 and U+FFFD for an invalid byte. */
static size_t utf8_next(const unsigned char *s, size_t len, uint32_t *cp)
{
    unsigned char c = s[0];
    size_t need;
    uint32_t v, min;
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if (c >= 0xc2 && c <= 0xdf) {
        need = 1, v = c & 0x1f, min = 0x80;
    } else if (c >= 0xe0 && c <= 0xef) {
        need = 2, v = c & 0x0f, min = 0x800;
    } else if (c >= 0xf0 && c <= 0xf4) {
        need = 3, v = c & 0x07, min = 0x10000;
    } else {
        *cp = 0xfffd;
        return 1;
    }
    if (len < need + 1)
        goto bad;
    for (size_t i = 1; i <= need; i++) {
        if ((s[i] & 0xc0) != 0x80)
            goto bad;
        v = v << 6 | (s[i] & 0x3f);
    }
    if (v < min || v > 0x10ffff)
        goto bad;
    *cp = v;
    return need + 1;
bad:
    *cp = 0xfffd;
    return 1;
}

void esc_json(struct fpl_buf *b, const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t len = strlen(str);
    char tmp[16];
    fpl_put_u8(b, '"');
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        size_t n = utf8_next(s + i, len - i, &cp);
        i += n;
        if (cp == '"' || cp == '\\') {
            fpl_put_u8(b, '\\');
            fpl_put_u8(b, (uint8_t)cp);
        } else if (cp >= 0x20 && cp < 0x7f && cp != '<' && cp != '>' && cp != '&') {
            fpl_put_u8(b, (uint8_t)cp);
        } else if (cp < 0x10000) {
            snprintf(tmp, sizeof(tmp), "\\u%04x", (unsigned)cp);
            put_cstr(b, tmp);
        } else {
            cp -= 0x10000;
            snprintf(tmp, sizeof(tmp), "\\u%04x\\u%04x", 0xd800u + (cp >> 10),
                     0xdc00u + (cp & 0x3ff));
            put_cstr(b, tmp);
        }
    }
    fpl_put_u8(b, '"');
}

void esc_html(struct fpl_buf *b, const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t len = strlen(str);
    char tmp[16];
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        i += utf8_next(s + i, len - i, &cp);
        if (cp >= 0xd800 && cp <= 0xdfff)
            cp = 0xfffd; /* a lone surrogate is no character in HTML */
        if (cp < 0x20 || cp == 0x7f) {
            fpl_put_u8(b, ' ');
        } else if (cp == '<' || cp == '>' || cp == '&' || cp == '"' || cp == '\'') {
            put_cstr(b, cp == '<'   ? "&lt;"
                        : cp == '>' ? "&gt;"
                        : cp == '&' ? "&amp;"
                        : cp == '"' ? "&quot;"
                                    : "&#39;");
        } else if (cp < 0x7f) {
            fpl_put_u8(b, (uint8_t)cp);
        } else {
            snprintf(tmp, sizeof(tmp), "&#x%x;", (unsigned)cp);
            put_cstr(b, tmp);
        }
    }
}
