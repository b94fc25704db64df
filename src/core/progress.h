/* Progress of a run on stderr, for both commands: a stage name, the bytes
 * done of the total when it is known, the rate and the time left. On a
 * terminal it is one line that redraws itself; with --progress it is a plain
 * line every few seconds, for pipeline logs; otherwise nothing. Messages
 * (log.h) erase the live line before they print, so the two never mix. */
#ifndef SG_PROGRESS_H
#define SG_PROGRESS_H

#include <stdint.h>

/**
 * Start reporting (a thread that wakes a few times a second).
 * @param prefix  "seqgpu find": the line starts "[prefix] "
 * @param quiet   -q: no live line
 * @param every   > 0: plain lines every that many seconds whatever stderr
 *                is (--progress); 0: a live line when stderr is a terminal
 */
void sg_progress_start(const char *prefix, int quiet, double every);

/**
 * Enter a stage. Its work counter starts at 0.
 * @param name   what is being done ("counting k-mers")
 * @param total  stored bytes the stage will read (sg_input_stored_bytes), 0 if unknown
 */
void sg_progress_stage(const char *name, uint64_t total);

/** As sg_progress_stage, for a stage that counts bases (shown in b, kb,
 * Mb and Gb, as genomes are sized) rather than bytes. */
void sg_progress_stage_bases(const char *name, uint64_t total);

/** Bytes (or bases) of the stage done so far (thread-safe, cheap: an atomic store). */
void sg_progress_set(uint64_t done);

/** Add to the stage's work done, from any thread (an atomic add). */
void sg_progress_add(uint64_t done);

/** Stop reporting and erase the live line (before the summary lines). */
void sg_progress_stop(void);

/** For log.c: take stderr (erasing the live line) before a message, and give it back after. */
void sg_progress_hold(void);
void sg_progress_release(void);

#endif
