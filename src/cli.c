#define _GNU_SOURCE
#include "cli.h"

#include "log.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

int sg_parse_devices(const char *s, int max, sg_devices_t *d)
{
    d->n = 0;
    if (max > SG_MAX_DEVICES) max = SG_MAX_DEVICES;
    for (const char *t = s;; t++) {
        const char *end = strchr(t, ',');
        char num[16];
        size_t len = end ? (size_t)(end - t) : strlen(t);
        long v;
        if (d->n == max || len >= sizeof num) return -1;
        memcpy(num, t, len);
        num[len] = 0;
        if (sg_parse_int(num, 0, 1023, &v) < 0) return -1;
        for (int i = 0; i < d->n; i++)
            if (d->id[i] == v) return -1;
        d->id[d->n++] = (int)v;
        if (!end) return 0;
        t = end;
    }
}

const sg_devices_t *sg_devices_or_default(const sg_devices_t *d)
{
    static const sg_devices_t first = {.id = {0}, .n = 1};
    return d && d->n ? d : &first;
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
    case 't': case 'T': shift = 40; end++; break;
    }
    if (*end == 'b' || *end == 'B') end++;
    if (*end || v == 0 || v > (~0ull >> (shift + 1))) return -1;
    *out = (size_t)(v << shift);
    return 0;
}

int sg_parse_part(const char *s, long max, long *i, long *n)
{
    const char *slash = strchr(s, '/');
    if (!slash || slash - s > 20) return -1;
    char num[24];
    memcpy(num, s, slash - s);
    num[slash - s] = 0;
    if (sg_parse_int(slash + 1, 1, max, n) < 0 || sg_parse_int(num, 1, *n, i) < 0) return -1;
    return 0;
}

int sg_usage_error(const char *cmd, const char *fmt, const char *arg)
{
    fprintf(stderr, "%s: ", cmd);
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\ntry '%s -h' for the options\n", cmd);
    return SG_EXIT_INPUT;
}

int sg_parse_progress(const char *s, double *every)
{
    char *end;
    *every = s ? strtod(s, &end) : SG_PROGRESS_EVERY;
    return s && (end == s || *end || !(*every >= 0.1) || *every > 86400) ? -1 : 0;
}
