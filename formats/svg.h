/* A small SVG writer for seqgpu's pictures: SVG 1.1 text written directly
 * (no library), styled by the classes of one style sheet, so that browsers,
 * rsvg-convert and Inkscape show the same picture. Text is escaped and made
 * valid UTF-8 whatever the bytes of a file name. Write errors are the
 * caller's to check (sg_outfiles_close()). */
#ifndef SG_SVG_H
#define SG_SVG_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/**
 * Start a picture of w x h pixels: the XML declaration, the svg element, a
 * title element (what a viewer shows as the picture's name), the style
 * sheet css and a white background.
 */
void sg_svg_begin(FILE *fp, int w, int h, const char *title, const char *css);
void sg_svg_end(FILE *fp);

/** s as XML character data or an attribute value: markup characters and
 * quotes escaped, bytes that are not UTF-8 or not allowed in XML (control
 * characters) written as U+FFFD. */
void sg_xml_str(FILE *fp, const char *s);

/** A text element at (x, y) (the baseline's start, middle or end, as the
 * classes cls say), its content printf-style and escaped. */
void sg_svg_text(FILE *fp, double x, double y, const char *cls, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/** Characters of s (UTF-8 characters, not bytes). */
size_t sg_svg_chars(const char *s);

/** s cut to at most n characters, ending in an ellipsis when cut, into buf
 * (bufsz >= 4 n + 4); returns buf. */
const char *sg_svg_fit(const char *s, size_t n, char *buf, size_t bufsz);

/** x with thousands separators (1,409,100) into buf; returns buf. */
const char *sg_svg_count(uint64_t x, char buf[32]);

#endif
