/* The SCC kernels' C interface (patent CN111754383B, seed 003): each
 * function queues one kernel (or one CUB call) on stream s; all pointers are
 * on the device. Built by nvcc (scc_kernels.cu), driven from C (scc_cuda.c). */
#ifndef SG_SCC_KERNELS_H
#define SG_SCC_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SG_DSCC_NONE 0xffffffffu /* no component yet / no vertex */
#define SG_DSCC_FW 1u            /* state bits: reached forward, backward */
#define SG_DSCC_BW 2u

/* A directed graph in CSR form with its reverse (the patent's R, C, R', C'). */
typedef struct {
    uint32_t n;
    const unsigned long long *off, *roff; /* n + 1 each */
    const uint32_t *adj, *radj;
} sg_dgraph_t;

/* The vertex state of the pipeline (the patent's array M, split by field). */
typedef struct {
    uint32_t *comp;              /* component label (a member vertex), or NONE */
    uint32_t *part;              /* partition label of an unresolved vertex, < 3n */
    uint32_t *state;             /* FW / BW bits of the current traversal */
    uint32_t *in, *out;          /* live in- and out-degrees inside the partition (trim) */
    uint32_t *color;             /* coloring partition */
    unsigned long long *slot;    /* pivot key of each partition label, 3n */
    const uint32_t *weight;      /* tie-break of the first pivot (k-mer count), or NULL */
    uint32_t *queue[4];          /* work lists: forward, backward, and the next of each */
    uint32_t *heavy;             /* vertices of more than SG_DSCC_HEAVY edges met by a search or trim
                                  * (bit 31: backward), left to the whole grid */
    const uint32_t *heavy_out;   /* the vertices of more than SG_DSCC_HEAVY out-edges (fixed) */
    uint32_t n_heavy_out;
    unsigned long long *counter; /* device counters: see sg_dscc_counter_t */
} sg_dstate_t;

/* Slots of sg_dstate_t.counter. */
enum { SG_DC_Q0, SG_DC_Q1, SG_DC_Q2, SG_DC_Q3, SG_DC_CHANGED, SG_DC_LEFT, SG_DC_HEAVY, SG_DC_N };

/* A vertex with more edges than this is not left to one virtual warp: a
 * power-law hub's million edges would keep its lanes busy long after the rest
 * of the grid is done. Such vertices go on a list that every block sweeps. */
#define SG_DSCC_HEAVY 1024u

/* --- chain contraction (vertices with one in- and one out-edge) --- */

/** indeg[v] += 1 for every edge; the array must be zeroed first. */
cudaError_t sg_dscc_indegree(const unsigned long long *off, const uint32_t *adj, uint32_t n, uint32_t *indeg, cudaStream_t s);
/** chain[v] = in 1 and out 1; pred[w] = the source of w's one in-edge (chain w). */
cudaError_t sg_dscc_chain_marks(const unsigned long long *off, const uint32_t *adj, uint32_t n, const uint32_t *indeg,
                                uint8_t *chain, uint32_t *pred, cudaStream_t s);
/** jump[v] = (v << 32 | next[v]) for chain vertices (next = succ or pred). */
cudaError_t sg_dscc_jump_init(const unsigned long long *off, const uint32_t *adj, const uint32_t *pred, int backward,
                              uint32_t n, const uint8_t *chain, unsigned long long *jump, cudaStream_t s);
/** One pointer-jumping round; *flag = 1 if a chain vertex is not yet at a non-chain vertex. */
cudaError_t sg_dscc_jump_round(uint32_t n, const uint8_t *chain, unsigned long long *jump, unsigned long long *counter,
                               cudaStream_t s);
/** keep[v] = !chain[v] as 64-bit counts, for the scan that numbers the kept vertices. */
cudaError_t sg_dscc_keep(uint32_t n, const uint8_t *chain, unsigned long long *keep, cudaStream_t s);
/** Out-degrees of the contracted graph (n_r + 1 entries, last 0): its vertices are the kept ones. */
cudaError_t sg_dscc_reduced_degrees(const unsigned long long *off, uint32_t n, const uint8_t *chain,
                                    const unsigned long long *rank, unsigned long long *deg, uint32_t *orig,
                                    cudaStream_t s);
/** Edges of the contracted graph: an edge into a chain goes to the chain's exit. */
cudaError_t sg_dscc_reduced_edges(const unsigned long long *off, const uint32_t *adj, uint32_t n, const uint8_t *chain,
                                  const unsigned long long *rank, const unsigned long long *fjump,
                                  const unsigned long long *off_r, uint32_t *adj_r, cudaStream_t s);
/** Labels of the original vertices from the contracted graph's (comp_r, in contracted ids). */
cudaError_t sg_dscc_expand(uint32_t n, const uint8_t *chain, const unsigned long long *rank,
                           const unsigned long long *fjump, const unsigned long long *bjump, const uint32_t *comp_r,
                           const uint32_t *orig, uint32_t *label, cudaStream_t s);

/* --- reverse CSR --- */

/** Scatter the reverse edges; cursor starts as a copy of roff. */
cudaError_t sg_dscc_reverse(const unsigned long long *off, const uint32_t *adj, uint32_t n, unsigned long long *cursor,
                            uint32_t *radj, cudaStream_t s);
/** deg[v] (bytes) as 64-bit for a scan (n + 1 entries, the last 0). */
cudaError_t sg_dscc_widen8(const uint8_t *deg, uint32_t n, unsigned long long *deg64, cudaStream_t s);
/** deg[v] as 64-bit for a scan (n + 1 entries, the last 0). */
cudaError_t sg_dscc_widen(const uint32_t *deg, uint32_t n, unsigned long long *deg64, cudaStream_t s);
/** Exclusive prefix sum of n 64-bit values (CUB); tmp may be NULL to ask *tmp_bytes. */
cudaError_t sg_dscc_scan(void *tmp, size_t *tmp_bytes, const unsigned long long *in, unsigned long long *out, size_t n,
                         cudaStream_t s);

/* --- the pipeline --- */

/** The fixed list of vertices with more than SG_DSCC_HEAVY out-edges, onto list (count in *n). */
cudaError_t sg_dscc_heavy_out(const sg_dgraph_t *g, uint32_t *list, unsigned long long *n, cudaStream_t s);
/** Live in/out degrees of every unresolved vertex inside its partition (in and out zeroed first). */
cudaError_t sg_dscc_degrees(const sg_dgraph_t *g, const sg_dstate_t *st, int kw, cudaStream_t s);
/** Claim the unresolved vertices with a live degree of 0 as 1-SCCs, onto queue[0] (counter Q0). */
cudaError_t sg_dscc_trim_seed(const sg_dgraph_t *g, const sg_dstate_t *st, cudaStream_t s);
/** Remove the vertices of queue[qi] (count nq): their neighbours' live degrees drop, and a
 * neighbour reaching 0 is claimed and followed by the same thread or queued on queue[qo]. */
cudaError_t sg_dscc_trim_step(const sg_dgraph_t *g, const sg_dstate_t *st, int qi, uint32_t nq, int qo, cudaStream_t s);
/** The heavy vertices a trim step left (nh of them), by the whole grid; claims go to queue[qo]. */
cudaError_t sg_dscc_trim_heavy(const sg_dgraph_t *g, const sg_dstate_t *st, uint32_t nh, int qo, cudaStream_t s);
/** Claim 2-SCCs (two vertices linked both ways, nothing else entering, or nothing else leaving,
 * the pair), onto queue[0] so that a trim step updates their neighbours. */
cudaError_t sg_dscc_trim2(const sg_dgraph_t *g, const sg_dstate_t *st, cudaStream_t s);

/** slot[part[v]] = 0 for every unresolved v; counter LEFT += unresolved vertices. */
cudaError_t sg_dscc_slots_clear(const sg_dgraph_t *g, const sg_dstate_t *st, cudaStream_t s);
/** One pivot per partition: max of the key (round 0: in x out degree, then weight; later: a
 * hash of vertex and round, the patent's random pivot), then the vertex id. */
cudaError_t sg_dscc_pivot_keys(const sg_dgraph_t *g, const sg_dstate_t *st, uint32_t round, cudaStream_t s);
/** The pivots start the traversals: state FW|BW, on queue[0] (forward) and queue[1] (backward). */
cudaError_t sg_dscc_pivot_mark(const sg_dgraph_t *g, const sg_dstate_t *st, uint32_t round, int backward,
                               cudaStream_t s);
/** One level of the forward (queue[0], nf) and backward (queue[1], nb) traversals, each inside
 * its partition, by virtual warps: kw threads per group, kv queued vertices per group; the next
 * levels go to queue[2] and queue[3]. */
cudaError_t sg_dscc_bfs_level(const sg_dgraph_t *g, const sg_dstate_t *st, uint32_t nf, uint32_t nb, int kw, int kv,
                              cudaStream_t s);
/** The heavy vertices of a level (nh of them), by the whole grid. */
cudaError_t sg_dscc_bfs_heavy(const sg_dgraph_t *g, const sg_dstate_t *st, uint32_t nh, cudaStream_t s);
/** After a forward-backward search: FW&BW is the pivot's SCC; FW only, BW only and neither
 * become three partitions. With only_fw (coloring roots): FW is the root's SCC. State cleared. */
cudaError_t sg_dscc_split(const sg_dgraph_t *g, const sg_dstate_t *st, int only_fw, cudaStream_t s);

/** color[v] = v for unresolved vertices. */
cudaError_t sg_dscc_color_init(const sg_dgraph_t *g, const sg_dstate_t *st, cudaStream_t s);
/** One coloring sweep (kw threads per vertex): color[v] = min(color[v], colors of its
 * out-neighbours in the partition, color[color[v]]); counter CHANGED set if any moved. */
cudaError_t sg_dscc_color_step(const sg_dgraph_t *g, const sg_dstate_t *st, int kw, cudaStream_t s);
/** part = color; each root (color == id) becomes a pivot for a forward search (queue[0]). */
cudaError_t sg_dscc_color_roots(const sg_dgraph_t *g, const sg_dstate_t *st, cudaStream_t s);

/* --- numbering: components 0.. in the order of their first vertex, as sg_scc_renumber --- */

/** first[x] = n for all x (n + 1 entries). */
cudaError_t sg_dscc_first_init(uint32_t n, uint32_t *first, cudaStream_t s);
/** first[label[v]] = the smallest v of each label. */
cudaError_t sg_dscc_first(uint32_t n, const uint32_t *label, uint32_t *first, cudaStream_t s);
/** flag[v] = 1 where v is the first vertex of its label (n + 1 entries, the last 0), for a scan. */
cudaError_t sg_dscc_first_flags(uint32_t n, const uint32_t *label, const uint32_t *first, unsigned long long *flag,
                                cudaStream_t s);
/** comp[v] = rank[first[label[v]]]. */
cudaError_t sg_dscc_number(uint32_t n, const uint32_t *label, const uint32_t *first, const unsigned long long *rank,
                           uint32_t *comp, cudaStream_t s);

#ifdef __cplusplus
}
#endif

#endif
