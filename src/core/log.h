/* Messages on stderr, exit codes, and the run's resource usage. */
#ifndef SG_LOG_H
#define SG_LOG_H

#include <stddef.h>

/* Process exit codes: 0 success, 1 usage or input error, 2 and up internal. */
enum {
    SG_EXIT_OK = 0,
    SG_EXIT_INPUT = 1,   /* bad option, motif or input file */
    SG_EXIT_SYSTEM = 2,  /* output write failed, out of memory, internal error */
    SG_EXIT_DEVICE = 3   /* a GPU backend failed and no fallback was allowed */
};

/* Function return codes: 0 (or a count) on success, one of these on failure. */
enum {
    SG_ERR_INPUT = -1,
    SG_ERR_SYSTEM = -2,
    SG_ERR_DEVICE = -3
};

/** Map a negative SG_ERR_* code to the matching SG_EXIT_* code. */
int sg_exit_code(int err);

/** A backend whose teardown is slow and needless once the process ends (a
 * CUDA context) asks that the process end without it. */
void sg_exit_quick_request(void);
/** Whether that was asked. */
int sg_exit_quick_requested(void);
/** End of main: flush and end the process at once with code if a quick
 * exit was asked (no atexit handlers); else return code. */
int sg_exit_finish(int code);

/** Set the prefix of every message ("seqgpu find") and whether info lines print
 * (quiet 1: no info lines; 2: no messages at all, for fuzzing harnesses). */
void sg_log_init(const char *prefix, int quiet);

/** "PREFIX: message" on stderr. */
void sg_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/** "PREFIX: warning: message" on stderr. */
void sg_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/** "PREFIX: warning: message" on stderr unless quiet: what a pipeline meets as a matter of course (an empty input). */
void sg_notice(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/** "[PREFIX] message" on stderr unless quiet. */
void sg_info(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A name from the input (a record, a read, a segment) as messages show it:
 * at most SG_NAME_SHOWN bytes (cut at a character's start, then "..." and
 * its length), control characters as '?', so that a hostile name neither
 * floods the terminal nor writes to it. */
#define SG_NAME_SHOWN 100
typedef struct {
    char s[SG_NAME_SHOWN + 48];
} sg_name_buf_t;
/** name as shown, in b (NULL: "(none)"). */
const char *sg_name_shown(const char *name, sg_name_buf_t *b);

/** Seconds since an arbitrary fixed point (monotonic). */
double sg_realtime(void);
/** CPU seconds used by the process (user + system). */
double sg_cputime(void);
/** Peak resident set size of the process in bytes. */
size_t sg_peak_rss(void);

/** Memory this process may still take, in bytes: the smaller of the
 * system's available memory and what its cgroup's limit leaves (0: unknown). */
size_t sg_available_memory(void);

/** Allocation that reports "out of memory" and exits with SG_EXIT_SYSTEM on failure. */
void *sg_malloc(size_t n);
void *sg_calloc(size_t n, size_t size);
void *sg_realloc(void *p, size_t n);
char *sg_strdup(const char *s);

#endif
