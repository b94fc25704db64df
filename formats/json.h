/* Just enough JSON writing for --stats files. */
#ifndef SG_JSON_H
#define SG_JSON_H

#include <stddef.h>
#include <stdio.h>

/** Bytes of the well-formed UTF-8 character at p (RFC 3629: no overlong
 * forms, no surrogates, nothing past U+10FFFF), or 0 (the SVG writer's
 * escaping uses it too). */
size_t sg_utf8_char(const unsigned char *p);

/** Write s as a JSON string literal (valid UTF-8 whatever the bytes of s). */
void sg_json_str(FILE *fp, const char *s);

#endif
