#define _GNU_SOURCE
#include "core/log.h"
#include "core/progress.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static const char *log_prefix = "seqgpu";
static int log_quiet;

int sg_exit_code(int err)
{
    switch (err) {
    case SG_ERR_INPUT: return SG_EXIT_INPUT;
    case SG_ERR_DEVICE: return SG_EXIT_DEVICE;
    default: return err < 0 ? SG_EXIT_SYSTEM : SG_EXIT_OK;
    }
}

static volatile int quick_exit_wanted;

void sg_exit_quick_request(void) { quick_exit_wanted = 1; }
int sg_exit_quick_requested(void) { return quick_exit_wanted; }

int sg_exit_finish(int code)
{
    if (!quick_exit_wanted) return code;
    fflush(NULL); /* the outputs are closed and checked already; this is stderr */
    _exit(code);
}

void sg_log_init(const char *prefix, int quiet)
{
    log_prefix = prefix;
    log_quiet = quiet;
}

const char *sg_name_shown(const char *name, sg_name_buf_t *b)
{
    if (!name) return "(none)";
    size_t len = strlen(name), n = len <= SG_NAME_SHOWN ? len : SG_NAME_SHOWN;
    while (n < len && n > 0 && ((unsigned char)name[n] & 0xc0) == 0x80) n--; /* not inside a UTF-8 character */
    for (size_t i = 0; i < n; i++) b->s[i] = (unsigned char)name[i] < 0x20 || name[i] == 0x7f ? '?' : name[i];
    if (n < len) snprintf(b->s + n, sizeof b->s - n, "... (%zu bytes)", len);
    else b->s[n] = 0;
    return b->s;
}

enum { MSG_ERROR, MSG_WARN, MSG_INFO };

/* One line per message, in one fprintf, so that lines from several threads do not interleave. */
static void vmsg(int kind, const char *fmt, va_list ap)
{
    char buf[4096];
    vsnprintf(buf, sizeof buf, fmt, ap);
    sg_progress_hold();
    if (kind == MSG_INFO) fprintf(stderr, "[%s] %s\n", log_prefix, buf);
    else fprintf(stderr, "%s: %s%s\n", log_prefix, kind == MSG_WARN ? "warning: " : "", buf);
    sg_progress_release();
}

void sg_error(const char *fmt, ...)
{
    if (log_quiet > 1) return;
    va_list ap;
    va_start(ap, fmt);
    vmsg(MSG_ERROR, fmt, ap);
    va_end(ap);
}

void sg_warn(const char *fmt, ...)
{
    if (log_quiet > 1) return;
    va_list ap;
    va_start(ap, fmt);
    vmsg(MSG_WARN, fmt, ap);
    va_end(ap);
}

void sg_notice(const char *fmt, ...)
{
    if (log_quiet) return;
    va_list ap;
    va_start(ap, fmt);
    vmsg(MSG_WARN, fmt, ap);
    va_end(ap);
}

void sg_info(const char *fmt, ...)
{
    if (log_quiet) return;
    va_list ap;
    va_start(ap, fmt);
    vmsg(MSG_INFO, fmt, ap);
    va_end(ap);
}

double sg_realtime(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

double sg_cputime(void)
{
    struct rusage r;
    getrusage(RUSAGE_SELF, &r);
    return r.ru_utime.tv_sec + r.ru_stime.tv_sec + 1e-6 * (r.ru_utime.tv_usec + r.ru_stime.tv_usec);
}

size_t sg_peak_rss(void)
{
    struct rusage r;
    getrusage(RUSAGE_SELF, &r);
    return (size_t)r.ru_maxrss * 1024; /* Linux reports kilobytes */
}

/* The first number after key in a small text file, or 0 (a limit of "max" is 0 too). */
static unsigned long long read_number(const char *path, const char *key)
{
    FILE *fp = fopen(path, "r");
    if (!fp) return 0;
    char line[256];
    unsigned long long v = 0;
    while (!v && fgets(line, sizeof line, fp))
        if (!strncmp(line, key, strlen(key))) v = strtoull(line + strlen(key), NULL, 10);
    fclose(fp);
    return v;
}

size_t sg_available_memory(void)
{
    /* MemAvailable is in kB; a cgroup (v2, else v1) caps a container's or a
     * batch job's memory below what the machine has */
    unsigned long long avail = read_number("/proc/meminfo", "MemAvailable:") * 1024;
    static const char *const limit[][2] = {{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory.current"},
                                           {"/sys/fs/cgroup/memory/memory.limit_in_bytes",
                                            "/sys/fs/cgroup/memory/memory.usage_in_bytes"}};
    for (int i = 0; i < 2; i++) {
        unsigned long long lim = read_number(limit[i][0], ""), used = read_number(limit[i][1], "");
        if (lim && lim < (1ull << 60)) {
            unsigned long long left = lim > used ? lim - used : 0;
            if (!avail || left < avail) avail = left;
            break;
        }
    }
    return (size_t)avail;
}

static void *oom(size_t n)
{
    sg_error("out of memory (allocating %zu bytes)", n);
    exit(SG_EXIT_SYSTEM);
}

void *sg_malloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    return p ? p : oom(n);
}

void *sg_calloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size ? size : 1);
    return p ? p : oom(n * size);
}

void *sg_realloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    return q ? q : oom(n);
}

char *sg_strdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(sg_malloc(n), s, n);
}
