/* Layout: src/core/stage.h (issue 29's src/core/ "auto").
 *
 * auto's one answer to a device that fails: a stage of work (find's
 * scanner; scc's graph builder, solver, index and chaining) chosen on a
 * GPU is handed to the cpu, with one warning, and the choice's reason (-v,
 * --stats) says so. -b cuda never falls back: the failure is the caller's
 * (exit status 3). Stages run their work through sg_stage_run, or, when the
 * device fails half-way through a stage that the cpu then finishes
 * (find's chunks, the overlaps' chaining), say so with sg_stage_fall_back. */
#ifndef SG_STAGE_H
#define SG_STAGE_H

#include <stddef.h>

typedef struct {
    const char *backend;  /* the backend the stage runs on: "cpu", "cuda"; "cpu" once the cpu took over */
    int fallback;         /* auto: a device that fails hands the stage to the cpu */
    const char *instead;  /* the cpu's part, for the warning: "finding SCCs on the cpu" */
    char *why;            /* auto's choice and its reason (-v, --stats), or NULL: rewritten on a fallback */
    size_t whysz;
    /* optional: before the cpu takes over, what it needs again (the input):
     * 0, or a failure that ends the stage instead (said there) */
    int (*again)(void *arg, const char *err);
    int fell_back;        /* the cpu took the stage over */
    char err[512];        /* the failure, when the stage failed */
} sg_stage_t;

/** A stage's work on backend ("cpu", "cuda"): 0, or a negative SG_ERR_*
 * code with the reason in err. */
typedef int (*sg_stage_fn)(void *arg, const char *backend, char *err, size_t errsz);

/**
 * Run fn on s->backend; when that fails with SG_ERR_DEVICE under
 * s->fallback, s->again (when given), auto's warning (sg_stage_fall_back)
 * and fn again on the cpu.
 * Nothing else is printed: a failure's reason is in s->err.
 * @return fn's result
 */
int sg_stage_run(sg_stage_t *s, sg_stage_fn fn, void *arg) __attribute__((warn_unused_result));

/**
 * The device of stage s failed (failure, "CUDA device unusable (<err>)"
 * when NULL): under s->fallback the warning "<failure>; <instead>", the
 * reason "auto: cpu (the CUDA device failed: <err>)" into s->why, and the
 * stage on the cpu.
 * @return whether the cpu takes over (s->fallback)
 */
int sg_stage_fall_back(sg_stage_t *s, const char *failure);

#endif
