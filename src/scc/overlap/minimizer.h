/* The own overlapper of seqgpu scc -g overlap, in three stages:
 *
 *  - sketch: (w,k)-minimizers of each read's homopolymer-compressed
 *    sequence, as minimap2 -x ava-pb takes them (PacBio and ONT errors are
 *    mostly homopolymer lengths);
 *  - index: every minimizer seen twice or more, bucketed by its hash (the
 *    reads sorted into hash partitions, each sorted by hash; or, on a
 *    device, sketched and sorted there and bucketed here: sg_mindex_t);
 *  - overlap: for each read, the hits of its minimizers in the buckets
 *    (each pair of reads once), grouped by read and strand, clustered by
 *    diagonal into bands, and chained (the longest co-linear chain of a
 *    band or a window of it, src/scc/overlap/chain.h; on a device the same:
 *    sg_mindex_t chain); a chain is an overlap with an identity estimate.
 *
 * Buckets larger than a limit (repeats: satellites, transposons), and those
 * that a read holds many times (a tandem array inside it), are not paired
 * in full: each read is paired there only with a few of the other reads,
 * and a read that holds a minimizer many times contributes one occurrence
 * every SG_REP_WINDOW bases; when that would still give a read more hits
 * than a budget linear in its minimizers (long reads inside an array, whose
 * occurrences pair with the square of their length), one in 2, 4, 8, ... of
 * the occurrences away from the reads' ends. Reads inside a tandem array
 * still get their overlaps at multiples of the period, which is what closes
 * the array's cycles, with hits and memory linear in the reads.
 */
#ifndef SG_SCC_MINIMIZER_H
#define SG_SCC_MINIMIZER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/cli.h"
#include "scc/overlap/chain.h"
#include "scc/overlap/overlap.h"
#include "scc/overlap/readset.h"
#include "scc/overlap/sketch.h"

/**
 * sg_sketch_into()'s minimizers into a growable array.
 * @param a, m  the array and its size (*a may be NULL)
 * @return how many
 */
size_t sg_sketch(const uint8_t *codes, uint32_t len, int k, int w, int hpc, sg_mini_t **a, size_t *m);

/* minimap2's ava-pb sketch: homopolymer-compressed 19-mers, windows of 5 */
#define SG_OVL_K 19
#define SG_OVL_W 5

/* A read preset (scc -x), as minimap2's: the graph, and for the overlap
 * graph the sketch and the thresholds that suit the reads' errors. */
typedef struct {
    const char *name;  /* "hifi", "ont", "clr", "sr" */
    const char *graph; /* "overlap" or "dbg" */
    int k, w, hpc;     /* overlap: the sketch */
    double min_identity;
    uint32_t min_overlap;
} sg_read_preset_t;

/** The preset of that name, or NULL. */
const sg_read_preset_t *sg_read_preset(const char *name);

/* The index is split by a hash's top SG_OVL_PART_BITS bits into partitions. */
#define SG_OVL_PART_BITS 8
#define SG_OVL_PARTS (1 << SG_OVL_PART_BITS)

/* An indexed minimizer occurrence: the hash's bits below the partition's,
 * the read, and its position << 1 | strand. */
typedef struct {
    uint32_t hlo, rid, ps;
} sg_mrec_t;

typedef struct sg_ovl_opts sg_ovl_opts_t;

/* A chain of q with t on strand rev found on a device, whose span holds
 * n_all of q's minimizers. */
typedef struct {
    uint32_t q, t, rev, n_all;
    sg_chain_t c;
} sg_chain_rec_t;

/* The repeats' rules: a read holding a bucket's minimizer more than this
 * many times takes the repeat path for it, whatever the bucket's size. */
#define SG_REP_MAX_PER_READ 16

/* An index builder on a device (cuda/scc/sketch.cu). */
typedef struct sg_mindex sg_mindex_t;
struct sg_mindex {
    const char *name; /* "cuda" */
    /**
     * Every minimizer (sg_sketch_into() with o's k, w and hpc) of the stored
     * reads of rs that occurs twice or more, sorted by hash, then read, then
     * position, into *out (sg_malloc'd); partition p's are
     * (*out)[part[p] .. part[p + 1]). *sketched: all minimizers, the single
     * ones too.
     * @return 0, or SG_ERR_DEVICE with the reason in err
     */
    int (*build)(sg_mindex_t *x, const sg_readset_t *rs, const sg_ovl_opts_t *o, sg_mrec_t **out,
                 size_t part[SG_OVL_PARTS + 1], uint64_t *sketched, char *err, size_t errsz);
    /**
     * Optional, after build (and only then): the plan of the chaining on the
     * device. max_occ: the limit on buckets paired in full (0: chosen from
     * the index by sg_ovl_max_occ(), as the host chooses it), into *used.
     * The reads whose minimizers are all in buckets of max_occ or fewer
     * occurrences, each held by the read SG_REP_MAX_PER_READ times or fewer,
     * have their hits made and chained on the device by chain; host[i]
     * (sg_readset_n(rs) bytes, zeroed by the caller) is set to 1 for every
     * other stored read (the repeat reads: the host makes their hits).
     * *hits: the hits the device will chain.
     * @return 0, or SG_ERR_DEVICE with the reason in err (the device's
     *         memory is freed then)
     */
    int (*chain_plan)(sg_mindex_t *x, uint32_t max_occ, uint32_t *used, uint8_t *host, uint64_t *hits, char *err,
                      size_t errsz);
    /**
     * After chain_plan: the chains (src/scc/overlap/chain.h) of those reads, to *out
     * (sg_malloc'd, *n_out of them) in order of q, and of each q's as the
     * host finds them. May run on a thread of its own while the caller works
     * on the host (with no other call to x meanwhile). The device's memory
     * of build is freed, whatever the outcome.
     * @return 0, or SG_ERR_DEVICE with the reason in err
     */
    int (*chain)(sg_mindex_t *x, sg_chain_rec_t **out, size_t *n_out, char *err, size_t errsz);
    /**
     * Optional, with chain: the chains of hits the host made (the repeat
     * reads'): those of read q[i] are key[i][0 .. cnt[i]) and val[i]'s
     * (src/scc/overlap/chain.h; in any order), for n reads in increasing order. The
     * chains go to *out (sg_malloc'd, *n_out of them) in order of read, and
     * of each read's as the host finds them, n_all 0 (the caller counts).
     * @return 0, or SG_ERR_DEVICE with the reason in err
     */
    int (*chain_hits)(sg_mindex_t *x, uint32_t n, const uint32_t *q, const uint64_t *const *key,
                      const uint64_t *const *val, const uint64_t *cnt, sg_chain_rec_t **out, size_t *n_out, char *err,
                      size_t errsz);
    /** Optional: JSON members (no braces) for --stats, after build. */
    void (*stats)(const sg_mindex_t *x, FILE *fp);
    void (*free)(sg_mindex_t *x);
    void *priv;
};

struct sg_ovl_opts {
    int k, w, hpc;           /* the sketch (k 11 to 19: a hash's bits below the partition's fit 30) */
    int n_threads;
    uint32_t min_overlap;    /* chains shorter than SG_OVL_INT_FRAC of this are not reported */
    uint32_t max_occ;        /* 0: chosen from the minimizer counts */
    int rep_partners;        /* reads each read is paired with in a bucket above max_occ */
    sg_mindex_t *index;      /* NULL: the index is built on the host's threads */
    int fallback;            /* index's chaining fails: a warning, and the host chains (else the failure) */
};

/* The limit on buckets paired in full (max_occ) from the buckets' sizes:
 * hist[n] holds the occurrences in buckets of n (the last: of that many or
 * more). */
#define SG_OVL_OCC_HIST 1025
uint32_t sg_ovl_max_occ(const uint64_t hist[SG_OVL_OCC_HIST]);

/** SEQGPU_CUDA_CHAIN_BATCH when it is a whole number of 1 or more, else dflt. */
uint64_t sg_chain_batch_env(uint64_t dflt);

/** The defaults above, for n_threads threads and dovetails of min_overlap bases or more. */
void sg_ovl_opts_default(sg_ovl_opts_t *o, int n_threads, uint32_t min_overlap);

typedef struct {
    uint64_t minimizers;  /* of all stored reads */
    uint64_t indexed;     /* occurrences of minimizers seen twice or more */
    uint64_t buckets;     /* distinct minimizers indexed */
    uint32_t max_occ;     /* the limit used */
    uint64_t rep_buckets; /* buckets above it */
    uint64_t hits;        /* hits chained */
    uint64_t repeat_reads; /* reads with a minimizer from a repeat bucket: their hits are made on the host */
    uint32_t repeat_turns; /* turns of making those hits and chaining them on the device (the memory bound) */
    int index_device;      /* the index was built on o->index's device */
    int chain_fallback;    /* the device's chaining failed: the host chained every read (err says why) */
    uint64_t device_reads; /* reads chained on o->index's device (the others on the host's threads) */
    uint64_t overlaps;    /* chains reported */
    double index_s, overlap_s;
    /* overlap_s with a device: its chaining of its reads' hits, the host's
     * repeat reads' hits and their chaining there, the overlaps from the chains */
    double device_chain_s, repeat_hits_s, repeat_chain_s, emit_s;
} sg_ovl_stats_t;

/**
 * Every overlap among the stored reads of rs, each pair once (the larger
 * read number as q), self-overlaps at an offset included, handed to sink
 * in order of q (the overlaps of q with the reads t <= q), from one thread
 * at a time.
 * @param err  where o->index says why it failed
 * @return 0, the first negative code sink returned, or SG_ERR_DEVICE from o->index
 *         (nothing was handed to sink then)
 */
int sg_overlaps_find(const sg_readset_t *rs, const sg_ovl_opts_t *o, sg_overlap_sink_t sink, void *arg,
                     sg_ovl_stats_t *st, char *err, size_t errsz) __attribute__((warn_unused_result));

/** The overlap graph builder of src/scc/overlap/overlap.c with the minimizer index
 * built by index (a device's: cuda/scc/sketch.cu; the builder owns it from
 * now on), NULL for the cpu's; backend names where it is built. Under
 * o->fallback a device that fails hands the index to the host's threads. */
sg_graph_builder_t *sg_graph_builder_overlap(const sg_graph_opts_t *o, const char *backend, sg_mindex_t *index);

#endif
