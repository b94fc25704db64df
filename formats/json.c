#include "formats/json.h"

size_t sg_utf8_char(const unsigned char *p)
{
    unsigned char c = p[0], lo = 0x80, hi = 0xbf;
    size_t n;
    if (c < 0x80) return 1;
    if (c >= 0xc2 && c <= 0xdf) n = 2;
    else if (c >= 0xe0 && c <= 0xef) n = 3, lo = c == 0xe0 ? 0xa0 : 0x80, hi = c == 0xed ? 0x9f : 0xbf;
    else if (c >= 0xf0 && c <= 0xf4) n = 4, lo = c == 0xf0 ? 0x90 : 0x80, hi = c == 0xf4 ? 0x8f : 0xbf;
    else return 0;
    if (p[1] < lo || p[1] > hi) return 0;
    for (size_t i = 2; i < n; i++)
        if (p[i] < 0x80 || p[i] > 0xbf) return 0;
    return n;
}

void sg_json_str(FILE *fp, const char *s)
{
    fputc('"', fp);
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        size_t n = sg_utf8_char(p);
        if (n == 0) /* a byte that is not UTF-8 (a file name may hold any): Python's surrogateescape,
                     * which os.fsencode() turns back into the byte */
            fprintf(fp, "\\udc%02x", *p), n = 1;
        else if (*p == '"' || *p == '\\') fprintf(fp, "\\%c", *p);
        else if (*p < 0x20) fprintf(fp, "\\u%04x", *p);
        else fwrite(p, 1, n, fp);
        p += n;
    }
    fputc('"', fp);
}
