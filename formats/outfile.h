/* A run's output files: opened before any input is read, so that a bad
 * output fails the run before the work; never one of the inputs; and never
 * a short file that looks complete. A regular file is written under a
 * temporary name beside it (created with O_EXCL, an unpredictable name) and
 * all of a run's files are put in place together at the end, or none. A
 * failed run, an exit() (out of memory) or a fatal signal (SIGINT, SIGTERM,
 * SIGHUP, SIGPIPE, ...) removes the temporaries. Standard output ("-"),
 * other open descriptors (/dev/stdout, /dev/fd/N), devices and FIFOs are
 * written directly. Every write error is reported.
 * A name ending in .gz or .bgz is written BGZF-compressed (htslib), so
 * that zcat, bgzip -d and tabix read it; the FILE the writers see takes
 * plain text either way. */
#ifndef SG_OUTFILE_H
#define SG_OUTFILE_H

#include <stdio.h>

typedef struct sg_outfile sg_outfile_t;
struct sg_outfile {
    const char *what; /* the option that names it, for messages: "-o", "--stats", "PREFIX.gfa" */
    const char *path; /* as given; NULL: not asked for; "-": standard output */
    int threads;      /* BGZF compression and indexing threads (0: one) */
    /* set: this output is the tabix index of that one (BGZF, BED), built
     * when the run's outputs are closed and put in place with them */
    const sg_outfile_t *index_of;
    FILE *fp;         /* open from sg_outfiles_open() to sg_outfiles_close() */
    const char *name; /* path, or "(standard output)": for messages */
    char *target;     /* where it goes: path with its symlinks followed (a link stays a link) */
    char *tmp;        /* the temporary beside target, or NULL when written directly */
};

/**
 * The open descriptor an output name stands for: 1 for "-" and /dev/stdout,
 * 2 for /dev/stderr, N for /dev/fd/N and /proc/self/fd/N; -1 for a file
 * name. Such an output is written through the descriptor, as standard
 * output is (whatever it is: a pipe, a terminal, a file opened by a shell,
 * for appending too), never replaced; nothing goes beside it.
 */
int sg_outfile_fd(const char *path);

/** Whether an output of this name is written BGZF-compressed (.gz, .bgz). */
int sg_outfile_compressed(const char *path);

/**
 * Open the outputs out[0..n) whose path is set. Refuses an output that is
 * the same file as an input (device and inode, so links count too; "-" is
 * standard input) or as another output, and one that cannot be created. An
 * existing file keeps its mode; a symlink is written through.
 * @return 0, or SG_ERR_INPUT with the message printed and nothing left open
 */
int sg_outfiles_open(sg_outfile_t *out, int n, char *const *inputs, int n_inputs) __attribute__((warn_unused_result));

/**
 * Flush and close every output, build the tabix indexes; when all were
 * written, put them all in place, else remove them all.
 * @return 0; SG_ERR_INPUT when an index cannot be built from the output
 *         (a record's lines apart), SG_ERR_SYSTEM on a write error; the
 *         message printed
 */
int sg_outfiles_close(sg_outfile_t *out, int n) __attribute__((warn_unused_result));

/** Close and remove every output (a failed run). */
void sg_outfiles_discard(sg_outfile_t *out, int n);

/**
 * A new empty file beside path, under an unpredictable temporary name (as
 * the outputs'), removed if the process ends before sg_tmp_place() or
 * sg_tmp_remove(): for a file another library writes by name (an index).
 * @return its name (the caller frees it with sg_tmp_place or sg_tmp_remove),
 *         or NULL with errno set (a folder that is not writable)
 */
char *sg_tmp_beside(const char *path);

/**
 * Put the temporary tmp in place as path, unless path exists: a file is
 * never replaced, and one made meanwhile by another process stays.
 * @return 0 (in place, or there already; tmp removed and freed), or -1
 *         with errno set (tmp stays, for the caller to use or remove)
 */
int sg_tmp_place(char *tmp, const char *path);

/** Remove the temporary tmp and free it. */
void sg_tmp_remove(char *tmp);

#endif
