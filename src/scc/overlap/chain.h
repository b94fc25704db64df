/* Chaining minimizer hits into overlaps, the same on the host and on a CUDA
 * device (src/scc/overlap/chain.c, cuda/scc/chain.cu): the rules and the chaining
 * of one window are one function, so that the device's chains are the
 * host's by construction.
 *
 * A hit of read q with read t: key = t << 32 | strand << 31 | diagonal +
 * SG_DIAG_BIAS; val = q position << 32 | repeat << 31 | t position (on t's
 * strand that matches q; positions are a k-mer's last base). A read's hits,
 * sorted by key, fall into groups (t and strand) and the groups into bands:
 * hits whose diagonals follow one another within SG_CHAIN_GAP (the diagonal
 * of an overlap drifts with the reads' insertions and deletions). A band
 * wider than SG_CHAIN_BAND (a tandem array, where the hits lie on every
 * multiple of the period) is taken in windows of that width, half
 * overlapping; a narrower one is one window. In each window the longest
 * co-linear chain of the hits not yet chained is an overlap when it has
 * SG_CHAIN_MIN_ANCHORS hits or more. */
#ifndef SG_SCC_CHAIN_H
#define SG_SCC_CHAIN_H

#include <stdint.h>

#ifdef __CUDACC__
#define SG_CHAIN_FN __host__ __device__ static inline
#else
#define SG_CHAIN_FN static inline
#endif

#define SG_CHAIN_GAP 100         /* diagonals further apart than this start a new band */
#define SG_CHAIN_BAND 500        /* the widest band chained whole: the drift of a 10 kb overlap of 85% reads */
#define SG_CHAIN_MIN_ANCHORS 4   /* the fewest hits a chain reports */
#define SG_CHAIN_SAME_Q 64       /* hits of one q position that take part in a chain, at most */
#define SG_HIT_REP (1ull << 31)  /* val: the hit is from a bucket above max_occ */
#define SG_DIAG_BIAS (1ll << 30)

SG_CHAIN_FN uint32_t sg_hit_diag(uint64_t key) { return (uint32_t)(key & 0x7fffffff); }
SG_CHAIN_FN uint32_t sg_hit_qpos(uint64_t val) { return (uint32_t)(val >> 32); }
SG_CHAIN_FN uint32_t sg_hit_tpos(uint64_t val) { return (uint32_t)(val & 0x7fffffff); }

/* The first of p[0..n) (ascending) that is v or more: how many are below v. */
SG_CHAIN_FN uint32_t sg_first_at(const uint32_t *p, uint32_t n, uint32_t v)
{
    uint32_t lo = 0, hi = n;
    while (lo < hi) {
        const uint32_t mid = lo + (hi - lo) / 2;
        if (p[mid] < v) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

/* The hit of q's minimizer at qpos (canonical on strand qrev) with an
 * occurrence of read t (tlen bases) at tps (position << 1 | strand) of the
 * index: t's k-mer (k) ends at tp on t's strand that matches q, rev (its
 * span taken as k on the reverse strand). */
SG_CHAIN_FN void sg_hit_make(uint32_t qpos, uint32_t qrev, uint32_t t, uint32_t tps, uint32_t tlen, int k, int rep,
                             uint64_t *key, uint64_t *val)
{
    const uint32_t rev = qrev ^ (tps & 1), tpos = tps >> 1;
    const int64_t tp = rev ? (int64_t)tlen - tpos + k - 2 : (int64_t)tpos;
    *key = (uint64_t)t << 32 | (uint64_t)rev << 31 | (uint64_t)(tp - qpos + SG_DIAG_BIAS);
    *val = (uint64_t)qpos << 32 | (rep ? SG_HIT_REP : 0) | (uint64_t)tp;
}

/* Windows: a band of diagonals d_first to d_last wider than SG_CHAIN_BAND
 * is cut into slices of SG_CHAIN_BAND / 2 diagonals, and window w is slices
 * w and w + 1 (diagonals d_first + w * SG_CHAIN_BAND / 2 and the next
 * SG_CHAIN_BAND - 1); the last window is the first that reaches d_last. */
#define SG_CHAIN_SLICE (SG_CHAIN_BAND / 2)

SG_CHAIN_FN int sg_chain_wide(int64_t d_first, int64_t d_last) { return d_last - d_first > SG_CHAIN_BAND; }
SG_CHAIN_FN int sg_chain_last_window(int64_t d_first, int64_t d_last, uint32_t w)
{
    return d_first + (int64_t)w * SG_CHAIN_SLICE + SG_CHAIN_BAND - 1 >= d_last;
}

/**
 * The slices of a wide band of m hits sorted by val (key[i * stride] is hit
 * i's): order (m entries) lists the hits slice by slice, each slice's in val
 * order, slice s's at order[start[s] .. start[s + 1]) (start: m entries; a
 * wide band has 7 hits or more, and its slices are fewer than its hits).
 * @return the number of slices
 */
SG_CHAIN_FN uint32_t sg_chain_slices(const uint64_t *key, uint32_t stride, uint32_t m, int64_t d_first, int64_t d_last,
                                     uint32_t *order, uint32_t *start)
{
    const uint32_t n_sl = (uint32_t)((d_last - d_first) / SG_CHAIN_SLICE) + 1; /* <= m * SG_CHAIN_GAP / SG_CHAIN_SLICE + 1 */
    for (uint32_t s = 0; s <= n_sl; s++) start[s] = 0;
    for (uint32_t i = 0; i < m; i++) start[(sg_hit_diag(key[(uint64_t)i * stride]) - d_first) / SG_CHAIN_SLICE + 1]++;
    for (uint32_t s = 0; s < n_sl; s++) start[s + 1] += start[s];
    for (uint32_t i = 0; i < m; i++) order[start[(sg_hit_diag(key[(uint64_t)i * stride]) - d_first) / SG_CHAIN_SLICE]++] = i;
    for (uint32_t s = n_sl; s > 0; s--) start[s] = start[s - 1];
    start[0] = 0;
    return n_sl;
}

/* A chain found in a window: its hits, the first and the last hit's val,
 * and how many of its hits are not repeat hits. */
typedef struct {
    uint32_t n, shared;
    uint64_t first, last;
} sg_chain_t;

/**
 * The longest chain of co-linear hits (q and t positions both rising) among
 * a window's hits: the hits a[0..na) and b[0..nb) (indices into a band
 * sorted by val, each list in val order; a NULL: 0 .. na - 1), where
 * val[i * stride] is hit i's. Hits marked in used do not take part, a hit
 * twice counts once, and hits of one q position take part as one (none
 * extends another; the first SG_CHAIN_SAME_Q of them). When
 * SG_CHAIN_MIN_ANCHORS hits or more take part, the chain is found and its
 * hits are marked in used, however short it is (it is reported when it has
 * SG_CHAIN_MIN_ANCHORS hits or more). Patience sorting, O(n log n). cand,
 * cv, tail and pred: na + nb entries each.
 * @return the chain into *c (n 0: none)
 */
SG_CHAIN_FN void sg_chain_window(const uint64_t *val, uint32_t stride, const uint32_t *a, uint32_t na, const uint32_t *b,
                                 uint32_t nb, uint8_t *used, uint32_t *cand, uint64_t *cv, int32_t *tail, int32_t *pred,
                                 sg_chain_t *c)
{
    c->n = c->shared = 0;
    c->first = c->last = 0;
    uint32_t u = 0;
    for (uint32_t x = 0, y = 0; x < na || y < nb;) { /* the two lists merged by val */
        const uint32_t ia = x < na ? (a ? a[x] : x) : 0, ib = y < nb ? b[y] : 0;
        const int from_a = y >= nb || (x < na && val[(uint64_t)ia * stride] <= val[(uint64_t)ib * stride]);
        const uint32_t i = from_a ? ia : ib;
        x += from_a;
        y += !from_a;
        const uint64_t v = val[(uint64_t)i * stride];
        if (used[i] || (u && cv[u - 1] == v)) continue;
        cv[u] = v;
        cand[u++] = i;
    }
    if (u < SG_CHAIN_MIN_ANCHORS) return;
    uint32_t len = 0;
    for (uint32_t i = 0, j; i < u; i = j) {
        const uint32_t qi = sg_hit_qpos(cv[i]);
        for (j = i; j < u && sg_hit_qpos(cv[j]) == qi; j++) {}
        const uint32_t end = j - i < SG_CHAIN_SAME_Q ? j : i + SG_CHAIN_SAME_Q;
        uint32_t at[SG_CHAIN_SAME_Q];
        for (uint32_t x = i; x < end; x++) {
            const uint32_t tx = sg_hit_tpos(cv[x]);
            uint32_t lo = 0, hi = len;
            while (lo < hi) {
                const uint32_t mid = (lo + hi) / 2;
                if (sg_hit_tpos(cv[tail[mid]]) < tx) lo = mid + 1;
                else hi = mid;
            }
            at[x - i] = lo;
            pred[x] = lo ? tail[lo - 1] : -1;
        }
        for (uint32_t x = i; x < end; x++) {
            const uint32_t l = at[x - i];
            if (l == len || sg_hit_tpos(cv[x]) < sg_hit_tpos(cv[tail[l]])) tail[l] = (int32_t)x;
            if (l == len) len++;
        }
    }
    c->n = len; /* marked even when too short to report, as later windows expect */
    c->last = cv[tail[len - 1]];
    for (int32_t x = tail[len - 1]; x >= 0; x = pred[x]) {
        used[cand[x]] = 1;
        c->shared += !(cv[x] & SG_HIT_REP);
        c->first = cv[x];
    }
}

#endif
