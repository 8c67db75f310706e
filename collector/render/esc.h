/* esc.h: names and titles escaped for the outputs that quote them. Input is UTF-8, or the
 * JVM's modified UTF-8 (CESU-8 surrogate pairs are decoded); a byte that is not part of a
 * character becomes U+FFFD, so the output is always well formed. Appends to b (b->failed on
 * out of memory). Any thread.
 */
#ifndef ESC_H
#define ESC_H

#include "fpl_codec.h"

/* s as a JSON string literal, quotes included, in pure ASCII: every non-ASCII character, '<',
 * '>' and '&' as \uXXXX escapes (pairs outside the BMP), so it is safe inside an HTML <script>
 * element and under any charset. */
void esc_json(struct fpl_buf *b, const char *s);

/* s as HTML text (the <title> element): markup characters and non-ASCII as character
 * references, control characters as spaces, lone surrogates as U+FFFD. */
void esc_html(struct fpl_buf *b, const char *s);

#endif
