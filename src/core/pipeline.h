/* A multi-threaded pipeline of ordered and unordered steps (in the spirit of
 * minimap2's kt_pipeline, with parallel steps): read -> parse -> link -> scan
 * -> write, where parse and scan run on all workers and the others keep
 * input order. */
#ifndef SG_PIPELINE_H
#define SG_PIPELINE_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

typedef struct sg_emit sg_emit_t;

/** Hand an item to the next step (ordered steps and the source only). */
void sg_emit(sg_emit_t *e, void *item);

typedef struct {
    const char *name;
    /* Step 0 is the source: called with item NULL, one call at a time; it emits
     * items and returns 1 while there is more input, 0 at the end.
     * An ordered step gets its items one at a time in input order, owns each
     * (emits it, keeps it or frees it), may emit any number of items, and is
     * called once more with item NULL when its input has ended.
     * An unordered step changes the item in place; it runs on any thread in
     * any order, at most max_par calls at once (0: no limit); the item then
     * moves on with its place in the order unchanged.
     * Return < 0 (an SG_ERR_* code) to stop the whole pipeline. */
    int (*fn)(void *ctx, void *item, sg_emit_t *emit);
    int ordered;
    int max_par;
} sg_step_t;

typedef struct {
    int n_threads;                         /* worker threads, >= 1 */
    int max_items;                         /* items in flight at once, >= 1 */
    void (*free_item)(void *ctx, void *item); /* items leaving the last step or dropped on error */
    double *busy;                          /* if set: seconds spent in each step, summed over threads */
} sg_pipeline_opts_t;

/**
 * Run the steps until the source ends and every item has left the last step.
 * @return 0, or the first negative code a step returned.
 */
int sg_pipeline_run(const sg_step_t *steps, int n_steps, void *ctx, const sg_pipeline_opts_t *opt)
    __attribute__((warn_unused_result));

/* ---- loops on the workers (kt_for's place beside kt_pipeline) ---- */

/**
 * fn(arg, state, i) for every i in [0, n), taken grain at a time by up to
 * n_threads threads (the caller's among them), each with a zeroed state of
 * state_size bytes (none when 0) handed to done (one thread at a time, may
 * be NULL) at its end. A thread that cannot be started leaves its share to
 * the others.
 */
void sg_parallel_for(int n_threads, uint64_t n, uint64_t grain, void (*fn)(void *arg, void *state, uint64_t i),
                     void *arg, size_t state_size, void (*done)(void *arg, void *state));

/* sg_parallel_for on a thread of its own, for work that runs while the
 * caller does something else (e.g. faulting in pages of a host buffer while
 * the device works): started by sg_parallel_start, waited for by
 * sg_parallel_join (once per start; a zeroed one joins nothing). When no
 * thread can be started, the loop runs in sg_parallel_start. */
typedef struct {
    int n_threads;
    uint64_t n, grain;
    void (*fn)(void *arg, void *state, uint64_t i);
    void *arg;
    pthread_t thread;
    int started;
} sg_pfor_bg_t;

void sg_parallel_start(sg_pfor_bg_t *bg, int n_threads, uint64_t n, uint64_t grain,
                       void (*fn)(void *arg, void *state, uint64_t i), void *arg);
void sg_parallel_join(sg_pfor_bg_t *bg);

/* A loop over numbered items on the pipeline: work on any thread, collect in
 * order of i. */
typedef struct {
    size_t n, next;
    int stop; /* set by collect (__atomic_store_n): the loop ends after the items in flight; clear it to run again */
    int (*work)(void *ctx, size_t i, void **out);   /* any thread, any order */
    int (*collect)(void *ctx, size_t i, void *out); /* in order of i, one at a time; or NULL */
    void (*free_out)(void *out); /* every non-NULL out as its item leaves (after collect, or dropped on an error):
                                    an out collect keeps must be marked so that free_out spares it */
    void *ctx;
} sg_pfor_t;

/**
 * Run items pf->next .. pf->n - 1 of pf on n_threads workers (pf->next
 * advances; a loop stopped by collect runs on from there once pf->stop is
 * cleared).
 * @return 0, or the first negative code work or collect returned
 * (SG_ERR_SYSTEM when no worker thread starts).
 */
int sg_parallel_map(sg_pfor_t *pf, int n_threads) __attribute__((warn_unused_result));

#endif
