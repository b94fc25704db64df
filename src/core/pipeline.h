/* A multi-threaded pipeline of ordered and unordered steps (in the spirit of
 * minimap2's kt_pipeline, with parallel steps): read -> parse -> link -> scan
 * -> write, where parse and scan run on all workers and the others keep
 * input order. */
#ifndef SG_PIPELINE_H
#define SG_PIPELINE_H

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

#endif
