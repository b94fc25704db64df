/* The parts of seqgpu scc that run on a backend, as small interfaces like
 * find's (src/find/backend.h): a k-mer table, which counts the reads' k-mers and
 * compacts the kept ones into unitigs; a graph builder, which turns reads
 * into a sequence graph (the de Bruijn graph over a k-mer table, src/scc/dbg/dbg.c;
 * the read-overlap graph next); and an SCC solver. Each has a cpu and a cuda
 * implementation that give the same results, byte for byte; the registry
 * (registry.h) opens them by name. Functions returning int give 0, or
 * SG_ERR_DEVICE with the reason in err (a device that failed, or too little
 * device memory), or another SG_ERR_* code. */
#ifndef SG_SCC_BACKEND_H
#define SG_SCC_BACKEND_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "formats/seqio.h"
#include "core/chunk.h"
#include "core/cli.h"
#include "scc/coverage.h"
#include "scc/graph.h"
#include "scc/repeats.h"
#include "core/stage.h"

#define SG_K_MIN 11
#define SG_K_MAX 63

typedef struct {
    int k;                        /* k-mer size, odd, SG_K_MIN to SG_K_MAX */
    int n_threads;                /* host threads */
    const sg_devices_t *devices;  /* GPU (the first listed; NULL or none: device 0) */
    /* cpu: count only the k-mers of hash part `part` of n_parts (sg_kmer_part;
     * n_parts 0 or 1: all of them) */
    uint32_t part, n_parts;
    /* cpu: hold at most max_bytes of k-mers in memory (0: no limit), the
     * rest in a file in tmp_dir (removed however the run ends) */
    size_t max_bytes;
    const char *tmp_dir;
    uint64_t expect;              /* cpu: k-mers expected in the reads, to plan the counting (0: unknown) */
    uint32_t min_keep;            /* cpu: the least count filter and take will ask for (0, 1: any) */
} sg_kmer_opts_t;

/* Counted k-mers in k-mer order: what a part of a run hands on (scc
 * --counts-out, the bounded-memory passes) and what is added back. */
typedef struct {
    int k;
    uint64_t n;
    uint64_t *kmer;  /* n k-mers of (k + 31) / 32 words each, the high word first */
    uint32_t *count; /* their counts */
} sg_kmer_counts_t;

void sg_kmer_counts_free(sg_kmer_counts_t *kc);

/* A count table of canonical k-mers (either strand of the reads). */
typedef struct sg_kmer_table sg_kmer_table_t;
struct sg_kmer_table {
    const char *name; /* "cpu", "cuda" */
    /** Count the k-mers starting in [0, c->len) of chunk c, which carries k - 1
     * bases of overlap; k-mers stop at any base that is not A/C/G/T (either
     * case). Thread-safe. */
    int (*add)(sg_kmer_table_t *t, const sg_chunk_t *c);
    /** After the last add, before anything else: the counting ends. */
    int (*finish)(sg_kmer_table_t *t);
    /** Distinct k-mers (the kept ones after a filter), and occurrences counted. */
    uint64_t (*distinct)(const sg_kmer_table_t *t);
    uint64_t (*total)(const sg_kmer_table_t *t);
    /** hist[c]: distinct k-mers seen c times (c < n - 1); hist[n - 1]: n - 1 times or more. */
    int (*histogram)(sg_kmer_table_t *t, uint64_t *hist, int n);
    /** Keep only the k-mers seen at least min times (once). */
    int (*filter)(sg_kmer_table_t *t, uint32_t min);
    /** The node-centric de Bruijn graph of the kept k-mers compacted into
     * unitigs (maximal non-branching paths; a branch-free cycle is one unitig
     * with a link to itself), in canonical form: the same graph from every
     * table, byte for byte. */
    int (*unitigs)(sg_kmer_table_t *t, sg_graph_t *g);
    /** Optional: the members of a JSON object (no braces) for --stats. */
    void (*stats)(const sg_kmer_table_t *t, FILE *fp);
    /** Optional (cpu): the k-mers seen at least min times with their counts,
     * sorted; the table is empty afterwards, its memory freed as they are taken. */
    int (*take)(sg_kmer_table_t *t, uint32_t min, sg_kmer_counts_t *out);
    /** Optional (cpu): add counted k-mers (counts files), kc->k the table's k,
     * none twice (the parts of a run are disjoint), instead of add. */
    int (*add_counts)(sg_kmer_table_t *t, const sg_kmer_counts_t *kc);
    void (*free)(sg_kmer_table_t *t);
    uint32_t part, n_parts; /* after finish: the hash part counted (n_parts 1: all) */
    char err[512]; /* why a call failed */
    void *priv;
};

typedef int (*sg_kmer_table_ctor)(const sg_kmer_opts_t *o, sg_kmer_table_t **out, char *err, size_t errsz);

/** The cpu table (src/scc/dbg/kmers.c): the reads cut into super-k-mers by
 * minimizer bin in one pass, each bin then counted in a cache-sized hash
 * table; all threads. */
int sg_kmer_table_cpu(const sg_kmer_opts_t *o, sg_kmer_table_t **out, char *err, size_t errsz);
/** The least max_bytes the cpu table works in with n_threads threads. */
size_t sg_kmer_table_cpu_least(int n_threads);

/* A graph builder: reads in, a sequence graph out. */
typedef struct sg_graph_builder sg_graph_builder_t;
struct sg_graph_builder {
    const char *name;    /* "dbg", "overlap" */
    const char *backend; /* where it builds: "cpu", "cuda" */
    /** The graph of the reads of rd (freed here). Errors of the input are printed. */
    int (*build)(sg_graph_builder_t *b, sg_reader_t *rd, sg_graph_t *g);
    /** Optional: the repeats of the graph it built, given its SCCs, in place
     * of sg_repeats_find() (the overlap graph's come from its reads, whose
     * bases it gives to the repeats' segments of g here). It may merge
     * components in comp (the pictures then draw the merged ones). */
    int (*repeats)(sg_graph_builder_t *b, sg_graph_t *g, uint32_t *comp, uint32_t n_comp, sg_repeats_t *out);
    /** JSON members for --stats (each line "  \"key\": value,\n"), after build. */
    void (*stats)(const sg_graph_builder_t *b, FILE *fp);
    /** Optional (NULL: the pictures show the graph's depths): after build,
     * the k-mer count histogram and the coverage and threshold read from it
     * (pointing into the builder: valid until free). */
    void (*spectrum)(const sg_graph_builder_t *b, sg_spectrum_t *sp);
    void (*free)(sg_graph_builder_t *b);
    double coverage;     /* after build: the coverage of single-copy sequence, which copies are counted in */
    int assembly;        /* after build: the reads are an assembly's sequence (coverage 1; loci can be placed) */
    char *const *inputs; /* after build from counts files: the reads they counted (NULL: the run's inputs) */
    int n_inputs;
    double sec[3];       /* seconds: reading and counting, the threshold, the graph (overlap: reading, overlaps, graph) */
    char err[512];       /* why build failed with SG_ERR_DEVICE */
    void *priv;
};

typedef struct {
    int k;              /* k-mer size */
    int assembly;       /* 1: the reads are an assembly (coverage 1); 0: told from the count histogram */
    double min_copies;  /* keep k-mers seen >= min_copies x the estimated coverage ... */
    long min_count;     /* ... or, if above 0, >= min_count times */
    int n_threads;
    const sg_devices_t *devices;
    uint32_t min_overlap;  /* overlap: the shortest dovetail or containment kept, bases (shorter reads are skipped) */
    double min_identity;   /* overlap: the lowest estimated identity kept */
    int sketch_k, sketch_w, sketch_hpc; /* overlap: the own overlapper's minimizers (k 0: minimap2's ava-pb ones) */
    const char *overlaps;  /* overlap: a PAF file to take the overlaps from, or NULL for the own overlapper */
    FILE *overlaps_out;    /* overlap: where the kept overlaps are written as PAF, or NULL */
    sg_stage_t *stage;     /* the build's stage (stage.h), during build: under auto a device that fails
                            * after the reads are in hands its work to the cpu, said there; NULL: none */
    /* cpu: the k-mer table holds at most max_bytes (0: no limit), the rest
     * of the k-mers in a file in tmp_dir; it plans its counting for expect
     * k-mers (0: unknown) */
    size_t max_bytes;
    const char *tmp_dir;
    uint64_t expect;
    char *const *inputs; /* the reads, as named (counts files record them) */
    int n_inputs;
    /* or, instead of reads, the k-mers of these counts files (scc --counts) */
    char *const *counts;
    int n_counts;
    int k_given;        /* with counts: k was given and must be theirs */
} sg_graph_opts_t;

/** The least threshold a run of o can take: -c when it is given, else 2 (a
 * threshold from --min-copies is never below 2). */
static inline uint32_t sg_graph_min_count(const sg_graph_opts_t *o)
{
    return o->min_count > 0 ? (uint32_t)o->min_count : 2;
}

typedef int (*sg_graph_builder_ctor)(const sg_graph_opts_t *o, sg_graph_builder_t **out, char *err, size_t errsz);

/** The de Bruijn graph of the reads' repeated k-mers, counted in table t (which
 * the builder owns from now on, and frees as soon as the graph is built);
 * with o->counts, of the counts files' k-mers (build() takes no reader). */
int sg_graph_builder_dbg(sg_kmer_table_t *t, const sg_graph_opts_t *o, sg_graph_builder_t **out);

typedef struct {
    int n_threads;
    const sg_devices_t *devices; /* GPU (the first listed; NULL or none: device 0) */
    int kw, kv, kt;              /* cuda: threads and vertices per virtual warp, rounds between colorings */
} sg_scc_opts_t;

/* Strongly connected components. */
typedef struct sg_scc_solver sg_scc_solver_t;
struct sg_scc_solver {
    const char *name; /* "cpu", "cuda" */
    /** The component of every vertex of g (either kind), numbered 0.. in the
     * order of their first vertex: the same numbers from every solver.
     * comp has g->n_vert entries; *n_comp gets the number of components. */
    int (*solve)(sg_scc_solver_t *s, const sg_graph_t *g, uint32_t *comp, uint32_t *n_comp);
    /** Optional: the members of a JSON object (no braces) for --stats, after solve. */
    void (*stats)(const sg_scc_solver_t *s, FILE *fp);
    void (*free)(sg_scc_solver_t *s);
    char summary[384]; /* what the last solve did, for the log ("" : nothing to say) */
    char err[512];     /* why solve failed */
    void *priv;
};

typedef int (*sg_scc_solver_ctor)(const sg_scc_opts_t *o, sg_scc_solver_t **out, char *err, size_t errsz);

/** Tarjan's algorithm, iteratively (src/scc/tarjan.c). */
int sg_scc_solver_cpu(const sg_scc_opts_t *o, sg_scc_solver_t **out, char *err, size_t errsz);

#endif
