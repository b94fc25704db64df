/* Option values shared by the subcommands. */
#ifndef SG_CLI_H
#define SG_CLI_H

#include <stddef.h>

/** CPUs this process may run on (sched_getaffinity), at least 1. */
int sg_default_threads(void);

/** Parse a whole decimal integer in [lo, hi]; 0 or -1. */
int sg_parse_int(const char *s, long lo, long hi, long *out);

/** Parse a byte count with an optional K, M or G suffix (powers of 1024); 0 or -1. */
int sg_parse_size(const char *s, size_t *out);

/** A usage error, as samtools gives one: "CMD: message" (fmt with one %s
 * for arg) and "try 'CMD -h' for the options" on stderr. Returns SG_EXIT_INPUT. */
int sg_usage_error(const char *cmd, const char *fmt, const char *arg);

/* --progress's period without a value: often enough for a pipeline log to
 * show a run is alive, rarely enough not to flood it */
#define SG_PROGRESS_EVERY 5.0

/** The value of --progress[=SEC] (NULL: none given), 0.1 to 86400 seconds; 0 or -1. */
int sg_parse_progress(const char *s, double *every);

#endif
