#define _GNU_SOURCE
#include "core/cli.h"

#include "core/log.h"
#include "core/version.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* The CPUs that one cgroup's limit file allows: v2's cpu.max ("QUOTA
 * PERIOD", or "max PERIOD"), or v1's cpu.cfs_quota_us (-1: none) over
 * cpu.cfs_period_us; 0 when there is no limit or no such file. */
static double cgroup_limit(const char *dir, int v2)
{
    char path[PATH_MAX + 32], buf[64]; /* dir is at most PATH_MAX long */
    double quota = 0, period = 0;
    snprintf(path, sizeof path, "%s/%s", dir, v2 ? "cpu.max" : "cpu.cfs_quota_us");
    FILE *fp = fopen(path, "r");
    if (!fp) return 0;
    if (v2) {
        if (fscanf(fp, "%63s %lf", buf, &period) != 2 || !strcmp(buf, "max")) period = 0;
        else quota = strtod(buf, NULL);
    } else if (fscanf(fp, "%lf", &quota) == 1 && quota > 0) {
        fclose(fp);
        snprintf(path, sizeof path, "%s/cpu.cfs_period_us", dir);
        if (!(fp = fopen(path, "r"))) return 0;
        if (fscanf(fp, "%lf", &period) != 1) period = 0;
    }
    fclose(fp);
    return quota > 0 && period > 0 ? quota / period : 0;
}

int sg_cgroup_cpus(const char *root, const char *self)
{
    FILE *fp = fopen(self, "r");
    if (!fp) return 0;
    char line[PATH_MAX + 64];
    double cpus = 0;
    while (fgets(line, sizeof line, fp)) {
        /* "ID:CONTROLLERS:PATH": v2's is "0::PATH", v1's cpu line names cpu among its controllers */
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2) continue;
        *c1 = *c2 = 0;
        char *ctl = c1 + 1, *rel = c2 + 1, dir[PATH_MAX];
        rel[strcspn(rel, "\n")] = 0;
        int v2 = !strcmp(line, "0") && !*ctl;
        if (!v2) {
            char list[256];
            snprintf(list, sizeof list, ",%s,", ctl);
            if (!strstr(list, ",cpu,")) continue;
        }
        /* the limit of the process's own cgroup and of each above it (all
         * apply); inside a container the path may name a cgroup of the host
         * that is not mounted, and the container's own is the mount's root */
        int n = snprintf(dir, sizeof dir, "%s%s%s%s", root, v2 ? "" : "/", v2 ? "" : ctl, rel);
        if (n < 0 || (size_t)n >= sizeof dir) continue;
        size_t top = strlen(root) + (v2 ? 0 : 1 + strlen(ctl));
        for (;;) {
            double c = cgroup_limit(dir, v2);
            if (c > 0 && (cpus == 0 || c < cpus)) cpus = c;
            char *slash = strrchr(dir + top, '/');
            if (!slash) break;
            *slash = 0;
        }
    }
    fclose(fp);
    return cpus > 0 ? (int)ceil(cpus - 1e-9) : 0;
}

int sg_default_threads(void)
{
    cpu_set_t set;
    long n = sched_getaffinity(0, sizeof set, &set) == 0 && CPU_COUNT(&set) > 0 ? CPU_COUNT(&set)
                                                                               : sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1) n = 1;
    /* a container or a batch job's CPU quota, as the Java and Go runtimes read it (nproc does not) */
    int quota = sg_cgroup_cpus("/sys/fs/cgroup", "/proc/self/cgroup");
    return quota > 0 && quota < n ? quota : (int)n;
}

int sg_version(void)
{
    printf("seqgpu %s\n", SG_VERSION);
    return SG_EXIT_OK;
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
