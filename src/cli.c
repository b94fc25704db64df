#define _GNU_SOURCE
#include "cli.h"

#include "log.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <unistd.h>

int sg_default_threads(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0) return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

int sg_parse_int(const char *s, long lo, long hi, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

int sg_parse_size(const char *s, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || end == s || *s == '-') return -1;
    int shift = 0;
    switch (*end) {
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    }
    if (*end == 'b' || *end == 'B') end++;
    if (*end || v == 0 || v > (~0ull >> (shift + 1))) return -1;
    *out = (size_t)(v << shift);
    return 0;
}

int sg_usage_error(const char *prefix, void (*usage)(FILE *), const char *fmt, const char *arg)
{
    fprintf(stderr, "%s: ", prefix);
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n\n");
    usage(stderr);
    return SG_EXIT_INPUT;
}
