/* A backend turns chunks into hits. The CLI only chooses one; every backend
 * gives the same hits for the same chunk. */
#ifndef SG_BACKEND_H
#define SG_BACKEND_H

#include <stddef.h>
#include <stdio.h>

#include "chunk.h"
#include "hits.h"
#include "motif.h"

typedef struct sg_backend sg_backend_t;
struct sg_backend {
    const char *name;   /* "cpu", "cuda", "opencl" */
    char desc[256];     /* what it runs on, for logs and --stats */
    int max_par;        /* scan calls that may run at once (0: any number) */
    size_t chunk_size;  /* raw bytes per chunk it works best with */
    /** Append the hits starting in [0, c->len) of chunk c to hits (any order). */
    int (*scan)(sg_backend_t *be, const sg_chunk_t *c, sg_hits_t *hits);
    /** Optional: write JSON members (each line "  \"key\": value,") for --stats. */
    void (*stats)(sg_backend_t *be, FILE *fp);
    void (*free)(sg_backend_t *be);
    void *priv;
    char why[256];      /* auto: the choice and its reason, for -v and --stats */
};

typedef struct {
    const sg_motif_set_t *motifs; /* compiled */
    int skip_masked;
    const char *kernel;  /* "auto" or one of the backend's kernels */
    int n_threads;
    const char *device;  /* GPU index list ("0", "0,1"), NULL for the default */
    int fallback;        /* a GPU backend that fails mid-run hands the rest to the cpu backend */
    double input_bases;  /* expected text bases, for the planner (0: unknown) */
} sg_backend_opts_t;

/* Constructors: 0; SG_ERR_INPUT for a bad option (unknown kernel);
 * SG_ERR_DEVICE when the backend cannot run here. The reason goes to err. */
typedef int (*sg_backend_ctor)(const sg_backend_opts_t *o, sg_backend_t **out, char *err, size_t errsz);

int sg_backend_cpu(const sg_backend_opts_t *o, sg_backend_t **out, char *err, size_t errsz);

/* Exact patterns above which the cpu backend's auto kernel is the q-gram filter (backend_cpu.c). */
#define SG_CPU_VECTOR_MAX 12

/**
 * Open a backend by name: "cpu", "cuda", "opencl", or "auto": the planner's
 * choice (sg_backend_plan). Errors are printed; auto says why it fell back
 * to cpu only when a device exists and fails.
 * @return 0 or a negative SG_ERR_* code
 */
int sg_backend_open(const char *name, const sg_backend_opts_t *o, sg_backend_t **out)
    __attribute__((warn_unused_result));

/* The planner's estimate of one run. */
typedef struct {
    double cpu_s, gpu_s; /* wall seconds on the cpu backend, and on cuda with gpus devices */
    int gpus;            /* devices worth starting: 1 unless the device work is long enough to share */
    double bases;        /* the input size planned for */
} sg_backend_estimate_t;

/**
 * Estimate a run from the workload: the motif set's kernels and their
 * calibrated costs (kernels.h), the expected bases (SEQGPU_PLAN_BASES, else
 * o->input_bases, else 1e9), the threads, the GPUs listed (n_listed) and
 * their start-up time.
 */
void sg_backend_plan(const sg_backend_opts_t *o, int n_listed, sg_backend_estimate_t *e);

/** Names of the backends compiled into this binary, e.g. "cpu, cuda". */
const char *sg_backend_list(void);

#endif
