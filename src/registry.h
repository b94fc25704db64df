/* The backends: the registry of what each one implements (find's scanner;
 * scc's k-mer table, graph builders and SCC solver), opening them by name,
 * and the one auto rule of both commands. */
#ifndef SG_BACKEND_H
#define SG_BACKEND_H

#include <stddef.h>

#include "find/backend.h"
#include "scc/backend.h"

/* An estimate of one run's work, on the cpu and on cuda. */
typedef struct {
    double cpu_s, gpu_s; /* wall seconds on the cpu backend, and on cuda with gpus devices */
    int gpus;            /* devices worth starting: 1 unless the device work is long enough to share */
    double size;         /* the work planned for, for the reason auto gives ... */
    const char *unit;    /* ... in these units: "bases", "vertices" */
} sg_backend_estimate_t;

/**
 * find's estimate, from the workload: the motif set's kernels and their
 * calibrated costs (find_kernels.h), the expected bases (SEQGPU_PLAN_BASES,
 * else o->input_bases when known (>= 0), else 1e9), the threads, the GPUs listed (n_listed)
 * and their start-up time.
 */
void sg_backend_plan(const sg_backend_opts_t *o, int n_listed, sg_backend_estimate_t *e);

/**
 * scc's estimate, from the vertices of the graph (known, or expected from
 * the input's size): the CUDA start pays off from 2^20 vertices on.
 */
void sg_scc_plan(double vertices, sg_backend_estimate_t *e);

/**
 * scc's de Bruijn graph estimate: the k-mers of so many bases of reads
 * counted and compacted into unitigs on threads host threads, or on a
 * device; solid: a threshold (-c) that keeps the genome's k-mers (else
 * --min-copies keeps the repeats', few). SEQGPU_PLAN_BASES as above.
 */
void sg_dbg_plan(double bases, int threads, int solid, sg_backend_estimate_t *e);

/**
 * scc -g overlap's estimate: the reads' minimizer index and the chaining of
 * their overlaps, of so many bases of reads, on threads host threads or on
 * a device (which leaves the reading, the buckets and the repeat reads'
 * chains to the host's threads).
 */
void sg_overlap_plan(double bases, int threads, sg_backend_estimate_t *e);

/** The backend the estimate favours, device or not: "cuda" when its time is
 * at least 10% shorter, else "cpu" (sg_backend_auto's rule, for tests). */
const char *sg_backend_pick(const sg_backend_estimate_t *e);

/** Whether auto could take cuda here: built in, and a GPU reported; if
 * not, the reason (auto: cpu ...) goes to why. Costs no CUDA start. */
int sg_backend_gpu_possible(char *why, size_t whysz);

/**
 * The auto rule: cuda when this binary has it, the kernel driver reports a
 * GPU, and the estimate on cuda is at least 10% shorter (sg_backend_pick);
 * else cpu. The
 * choice and its reason go to why ("auto: cuda (estimated ...)"), for -v and
 * --stats; nothing is printed.
 * @return "cpu" or "cuda"
 */
const char *sg_backend_auto(const sg_backend_estimate_t *e, char *why, size_t whysz);

/**
 * Open find's backend by name: "cpu", "cuda", "opencl", or "auto" (the
 * rule above, with sg_backend_plan's estimate; a cuda backend chosen so
 * hands what fails to the cpu backend, through the stage runner of
 * stage.h). With several GPUs listed, a cuda backend starts those the
 * estimate finds worth their start. Errors are printed.
 * @return 0 or a negative SG_ERR_* code
 */
int sg_backend_open(const char *name, const sg_backend_opts_t *o, sg_backend_t **out)
    __attribute__((warn_unused_result));

/** Whether backend name ("cpu", "cuda") builds graph ("dbg", "overlap"). */
int sg_graph_builder_on(const char *graph, const char *name);

/**
 * Open scc's k-mer table, graph builder (graph "dbg" or "overlap") or SCC
 * solver on the backend name ("cpu" or "cuda").
 * @return 0, or SG_ERR_DEVICE with the reason in err (a backend this binary
 *         lacks, no device, a device that failed)
 */
int sg_kmer_table_open(const char *name, const sg_kmer_opts_t *o, sg_kmer_table_t **out, char *err, size_t errsz)
    __attribute__((warn_unused_result));
int sg_graph_builder_open(const char *graph, const char *name, const sg_graph_opts_t *o, sg_graph_builder_t **out,
                          char *err, size_t errsz) __attribute__((warn_unused_result));
int sg_scc_solver_open(const char *name, const sg_scc_opts_t *o, sg_scc_solver_t **out, char *err, size_t errsz)
    __attribute__((warn_unused_result));

/** Names of the backends compiled into this binary, e.g. "cpu, cuda". */
const char *sg_backend_list(void);

#endif
