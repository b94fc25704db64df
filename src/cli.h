/* Option values shared by the subcommands. */
#ifndef SG_CLI_H
#define SG_CLI_H

#include <stddef.h>
#include <stdio.h>

/** CPUs this process may run on (sched_getaffinity), at least 1. */
int sg_default_threads(void);

/** Parse a whole decimal integer in [lo, hi]; 0 or -1. */
int sg_parse_int(const char *s, long lo, long hi, long *out);

/** Parse a byte count with an optional K, M or G suffix (powers of 1024); 0 or -1. */
int sg_parse_size(const char *s, size_t *out);

/** "PREFIX: message" (fmt with one %s for arg), a blank line and the
 * command's usage on stderr. Returns SG_EXIT_INPUT. */
int sg_usage_error(const char *prefix, void (*usage)(FILE *), const char *fmt, const char *arg);

#endif
