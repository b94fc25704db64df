#define _GNU_SOURCE
#include "formats/svg.h"
#include "formats/json.h"
#include "core/log.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void sg_svg_begin(FILE *fp, int w, int h, const char *title, const char *css)
{
    fprintf(fp,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
            "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%d\" height=\"%d\" "
            "viewBox=\"0 0 %d %d\">\n<title>",
            w, h, w, h);
    sg_xml_str(fp, title);
    /* font sizes in pixels and DejaVu Sans first: what Debian's rsvg-convert
     * finds, and about the widths the layouts assume */
    fprintf(fp,
            "</title>\n<style>\n"
            "text { font-family: 'DejaVu Sans', Verdana, Arial, sans-serif; font-size: 13px; fill: #222; }\n"
            ".mid { text-anchor: middle; } .end { text-anchor: end; }\n"
            ".mono { font-family: 'DejaVu Sans Mono', Menlo, Consolas, monospace; }\n"
            "%s</style>\n"
            "<rect width=\"%d\" height=\"%d\" fill=\"#fff\"/>\n",
            css, w, h);
}

void sg_svg_end(FILE *fp) { fputs("</svg>\n", fp); }

void sg_xml_str(FILE *fp, const char *s)
{
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        size_t n = sg_utf8_char(p);
        /* XML 1.0 has no room for control characters, U+FFFE or U+FFFF */
        if (n == 0 || (*p < 0x20 && *p != '\t' && *p != '\n') || (n == 3 && p[0] == 0xef && p[1] == 0xbf && p[2] >= 0xbe))
            fputs("\xef\xbf\xbd", fp), n = n ? n : 1;
        else if (*p == '&') fputs("&amp;", fp);
        else if (*p == '<') fputs("&lt;", fp);
        else if (*p == '>') fputs("&gt;", fp);
        else if (*p == '"') fputs("&quot;", fp);
        else fwrite(p, 1, n, fp);
        p += n;
    }
}

void sg_svg_text(FILE *fp, double x, double y, const char *cls, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = NULL;
    if (vasprintf(&s, fmt, ap) < 0) {
        va_end(ap);
        sg_error("out of memory");
        exit(SG_EXIT_SYSTEM);
    }
    va_end(ap);
    fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\"", x, y);
    if (cls && *cls) fprintf(fp, " class=\"%s\"", cls);
    fputc('>', fp);
    sg_xml_str(fp, s);
    fputs("</text>\n", fp);
    free(s);
}

/* Bytes of the character at p, an invalid byte counting as one. */
static size_t char_len(const char *p)
{
    size_t n = sg_utf8_char((const unsigned char *)p);
    return n ? n : 1;
}

size_t sg_svg_chars(const char *s)
{
    size_t n = 0;
    for (; *s; s += char_len(s)) n++;
    return n;
}

const char *sg_svg_fit(const char *s, size_t n, char *buf, size_t bufsz)
{
    size_t at = 0, chars = 0;
    int cut = sg_svg_chars(s) > n;
    for (const char *p = s; *p && chars + cut < n; chars++) {
        size_t len = char_len(p);
        if (at + len + 4 > bufsz) break;
        memcpy(buf + at, p, len);
        at += len;
        p += len;
    }
    if (cut) memcpy(buf + at, "\xe2\x80\xa6", 3), at += 3; /* ... */
    buf[at] = 0;
    return buf;
}

const char *sg_svg_count(uint64_t x, char buf[32])
{
    char digits[24];
    int n = snprintf(digits, sizeof digits, "%llu", (unsigned long long)x), at = 0;
    for (int i = 0; i < n; i++) {
        if (i && (n - i) % 3 == 0) buf[at++] = ',';
        buf[at++] = digits[i];
    }
    buf[at] = 0;
    return buf;
}
