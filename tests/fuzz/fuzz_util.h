/* Shared by the libFuzzer harnesses: the input as a file, in memory, and a
 * failed check. */
#ifndef SG_FUZZ_UTIL_H
#define SG_FUZZ_UTIL_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <htslib/hts.h>

#include "core/log.h"

/* Write data to an anonymous in-memory file; its path goes to path. Returns the fd. */
static int fuzz_file(const uint8_t *data, size_t size, char *path, size_t n)
{
    static int quiet;
    if (!quiet) {
        sg_log_init("fuzz", 2);
        hts_set_log_level(HTS_LOG_OFF);
        quiet = 1;
    }
    int fd = memfd_create("seqgpu-fuzz", 0);
    if (fd < 0) return -1;
    for (size_t at = 0; at < size;) {
        ssize_t w = write(fd, data + at, size - at);
        if (w <= 0) break;
        at += (size_t)w;
    }
    snprintf(path, n, "/proc/self/fd/%d", fd);
    return fd;
}

/* A check failed: say which, and abort so that libFuzzer keeps the input. */
static void __attribute__((noreturn, format(printf, 1, 2))) fuzz_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("  check failed: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    abort();
}

#endif
