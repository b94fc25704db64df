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

#endif
