/* A backend of seqgpu find turns chunks into hits. The CLI only chooses one
 * (registry.h); every backend gives the same hits for the same chunk. */
#ifndef SG_FIND_BACKEND_H
#define SG_FIND_BACKEND_H

#include <stddef.h>
#include <stdio.h>

#include "core/chunk.h"
#include "core/cli.h"
#include "find/hits.h"
#include "find/motif.h"

typedef struct sg_backend sg_backend_t;
struct sg_backend {
    const char *name;   /* "cpu", "cuda", "opencl" */
    char desc[256];     /* what it runs on, for logs and --stats */
    int max_par;        /* scan calls that may run at once (0: any number) */
    size_t chunk_size;  /* raw bytes per chunk it works best with */
    /** Append the hits starting in [from, to) of chunk c to hits (any order); it may stop
     * early once hits has more than it keeps (sg_hits_over), leaving it so. */
    int (*scan)(sg_backend_t *be, const sg_chunk_t *c, size_t from, size_t to, sg_hits_t *hits);
    /** Optional: write JSON members (each line "  \"key\": value,") for --stats. */
    void (*stats)(sg_backend_t *be, FILE *fp);
    void (*free)(sg_backend_t *be);
    /** Optional, a device backend's, which says nothing of its failures itself: after
     * scan failed, what failed in this thread's call into err ("" when another call
     * said it already), and whether the device's start failed (else its scan). The
     * registry's stage runner says it, and under auto hands the chunk and all later
     * ones to the cpu backend. */
    void (*failure)(sg_backend_t *be, char *err, size_t errsz, int *at_start);
    void *priv;
    char why[256];      /* auto: the choice and its reason, for -v and --stats */
};

typedef struct {
    const sg_motif_set_t *motifs; /* compiled */
    int skip_masked;
    const char *kernel;  /* "auto" or one of the backend's kernels */
    int n_threads;
    const sg_devices_t *devices; /* GPUs (NULL or none: device 0) */
    int gpus;            /* GPUs worth starting of those listed (the registry's estimate); 0: all */
    double input_bases;  /* expected text bases, for the planner (-1: unknown) */
} sg_backend_opts_t;

/* Constructors: 0; SG_ERR_INPUT for a bad option (unknown kernel);
 * SG_ERR_DEVICE when the backend cannot run here. The reason goes to err. */
typedef int (*sg_backend_ctor)(const sg_backend_opts_t *o, sg_backend_t **out, char *err, size_t errsz);

int sg_backend_cpu(const sg_backend_opts_t *o, sg_backend_t **out, char *err, size_t errsz);

/* Exact patterns above which the cpu backend's auto kernel is the q-gram filter (src/find/cpu.c). */
#define SG_CPU_VECTOR_MAX 12

#endif
