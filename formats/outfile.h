/* Output files that never look complete unless they are: a regular file is
 * written under a temporary name beside it and renamed into place when it is
 * closed without error; a failed or interrupted (SIGINT, SIGTERM, SIGHUP)
 * run removes the temporary. Standard output ("-"), devices and FIFOs are
 * written directly. Every write error is reported. */
#ifndef SG_OUTFILE_H
#define SG_OUTFILE_H

#include <stdio.h>

typedef struct {
    FILE *fp;
    char *path; /* as given; "(standard output)" for "-" */
    char *tmp;  /* the temporary name, or NULL when writing directly */
} sg_outfile_t;

/** Open path for writing ("-": standard output). 0, or SG_ERR_INPUT with the message printed. */
int sg_outfile_open(sg_outfile_t *o, const char *path) __attribute__((warn_unused_result));
/** Flush, close and put in place. 0, or SG_ERR_SYSTEM with the message printed. */
int sg_outfile_close(sg_outfile_t *o) __attribute__((warn_unused_result));
/** Close and remove what was written (a failed run). */
void sg_outfile_discard(sg_outfile_t *o);

#endif
