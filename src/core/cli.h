/* Option values shared by the subcommands. */
#ifndef SG_CLI_H
#define SG_CLI_H

#include <stddef.h>

/** CPUs this process may use: those it may run on (sched_getaffinity),
 * fewer when its cgroup's CPU quota allows fewer; at least 1. */
int sg_default_threads(void);

/**
 * The CPU quota of the cgroups of a process, rounded up: the smallest of the
 * limits of its cgroup and those above it, cgroup v2 (cpu.max) or v1
 * (cpu.cfs_quota_us / cpu.cfs_period_us).
 * @param root  where cgroups are mounted (/sys/fs/cgroup)
 * @param self  the process's cgroup list (/proc/self/cgroup)
 * @return the CPUs, or 0 when no quota applies
 */
int sg_cgroup_cpus(const char *root, const char *self);

/** --version, -V: "seqgpu VERSION" on stdout; returns SG_EXIT_OK. */
int sg_version(void);

/* The exit codes, as -h, the README and the man pages word them. */
#define SG_EXIT_STATUS_TEXT \
    "Exit status: 0 success, 1 usage or input error, 2 output or internal error, 3 a GPU backend that was asked for failed.\n"

/** Parse a whole decimal integer in [lo, hi]; 0 or -1. */
int sg_parse_int(const char *s, long lo, long hi, long *out);

/* GPU indices as the user numbers them (--device 0,2). */
#define SG_MAX_DEVICES 64
typedef struct {
    int id[SG_MAX_DEVICES];
    int n; /* 0: none given (device 0) */
} sg_devices_t;

/** Parse a --device list: comma-separated indices 0 to 1023, each once, at most max of them; 0 or -1. */
int sg_parse_devices(const char *s, int max, sg_devices_t *d);

/** The devices of d, or device 0 alone when d is NULL or lists none. */
const sg_devices_t *sg_devices_or_default(const sg_devices_t *d);

/** Parse a byte count with an optional K, M or G suffix (powers of 1024); 0 or -1. */
int sg_parse_size(const char *s, size_t *out);

/** Parse a part "I/N" of a run cut into N parts, 1 <= I <= N <= max; 0 or -1. */
int sg_parse_part(const char *s, long max, long *i, long *n);

/** A usage error, as samtools gives one: "CMD: message" (fmt with one %s
 * for arg) and "try 'CMD -h' for the options" on stderr. Returns SG_EXIT_INPUT. */
int sg_usage_error(const char *cmd, const char *fmt, const char *arg);

/* --progress's period without a value: often enough for a pipeline log to
 * show a run is alive, rarely enough not to flood it */
#define SG_PROGRESS_EVERY 5.0

/** The value of --progress[=SEC] (NULL: none given), 0.1 to 86400 seconds; 0 or -1. */
int sg_parse_progress(const char *s, double *every);

#endif
