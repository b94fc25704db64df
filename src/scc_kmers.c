/* The cpu k-mer table of seqgpu scc: a hash table in N_PART partitions,
 * each under its own lock, filled by all threads; and the compaction of the
 * kept k-mers' de Bruijn graph into unitigs. Compiled once per key width
 * (SG_KMER_BITS 64: k <= 31; 128: k <= 63), each giving its constructor;
 * sg_kmer_table_cpu (scc_backend.h) picks by k.
 *
 * Bounded memory: the table may hold one hash part of the k-mers only
 * (sg_kmer_part), and when it would grow past its byte limit it halves that
 * part, dropping the k-mers of the second half, and goes on; the caller
 * counts the parts it did not keep in later passes (scc_counts.c). */
#include "scc_kmers.h"
#include "dna.h"
#include "log.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#if SG_KMER_BITS == 64
typedef uint64_t kmer_t;
#define kmer_hash sg_kmer64_hash
#define kmer_rc sg_kmer64_rc
#define kmer_canon sg_kmer64_canon
#define kmer_next sg_kmer64_next
#define kmer_prev sg_kmer64_prev
#define kmer_roll sg_kmer64_roll
#define TABLE_CTOR sg_kmer_table_cpu64
#elif SG_KMER_BITS == 128
typedef sg_kmer128_t kmer_t;
#define kmer_hash sg_kmer128_hash
#define kmer_rc sg_kmer128_rc
#define kmer_canon sg_kmer128_canon
#define kmer_next sg_kmer128_next
#define kmer_prev sg_kmer128_prev
#define kmer_roll sg_kmer128_roll
#define TABLE_CTOR sg_kmer_table_cpu128
#else
#error "build with SG_KMER_BITS 64 or 128"
#endif

#define N_PART 256 /* lock partitions of the count table, by the top byte of the hash */

typedef struct {
    pthread_mutex_t mu;
    kmer_t *key;
    uint32_t *count; /* 0: empty slot */
    uint64_t cap;    /* any size: a k-mer's first slot is home() */
    uint64_t size;
} part_t;

/* The first slot of a k-mer of hash h in a partition of cap slots: the low
 * 32 bits scaled to cap (the top byte chose the partition; a hash part,
 * bits 24-55, leaves these uniform), so that a partition grows by any
 * factor, not only by doubling. */
static inline uint64_t home(uint64_t h, uint64_t cap) { return (h & 0xffffffffu) * cap >> 32; }

/* Slots for n k-mers at a load of at most 0.7. */
static uint64_t cap_for(uint64_t n) { return n * 10 / 7 + 16; }

/* Bytes of a slot. */
#define SLOT (sizeof(kmer_t) + sizeof(uint32_t))

/* the most parts a bounded table cuts its k-mers into */
#define MAX_PARTS (1u << 24)

typedef struct {
    int k, n_threads;
    part_t *parts; /* N_PART */
    uint64_t total;
    /* the hash part held, n_parts << 32 | part: it changes (narrows) only
     * with every partition locked */
    uint64_t range;
    size_t max_bytes;    /* 0: no limit */
    uint64_t bytes;      /* slots' bytes of all partitions (atomic) */
} table_t;

static inline int in_range(uint64_t range, uint64_t h)
{
    uint32_t n = (uint32_t)(range >> 32);
    return n <= 1 || sg_kmer_part(h, n) == (uint32_t)range;
}

/* A partition's slots are memory mapped for it alone (zeroed, and given
 * back to the system when it is rebuilt or freed): the allocator's arena
 * would keep the smaller arrays of every doubling, and the process would
 * hold more than the table. The compaction's arrays over all slots too. */
static void *slots_alloc(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        sg_error("out of memory (mapping %zu bytes)", bytes);
        exit(SG_EXIT_SYSTEM);
    }
    /* huge pages where the system gives them on request: each insertion
     * lands on a random slot, and 4 kB pages would make most of them a TLB
     * miss too */
    if (bytes >= (2 << 20)) madvise(p, bytes, MADV_HUGEPAGE);
    return p;
}

static void part_init(part_t *p, uint64_t cap)
{
    p->cap = cap;
    p->size = 0;
    p->key = slots_alloc(cap * sizeof *p->key);
    p->count = slots_alloc(cap * sizeof *p->count);
}

static void slots_free(part_t *p)
{
    if (p->key) munmap(p->key, p->cap * sizeof *p->key);
    if (p->count) munmap(p->count, p->cap * sizeof *p->count);
}

static void part_release(part_t *p)
{
    slots_free(p);
    p->key = NULL;
    p->count = NULL;
    p->cap = p->size = 0;
}

/* Add n to x's count (inserting it), partition locked. */
static inline void part_add(part_t *p, kmer_t x, uint64_t h, uint32_t n)
{
    uint64_t i = home(h, p->cap);
    while (p->count[i] && p->key[i] != x) i = i + 1 == p->cap ? 0 : i + 1;
    if (!p->count[i]) {
        p->key[i] = x;
        p->size++;
    }
    uint64_t c = (uint64_t)p->count[i] + n;
    p->count[i] = c > UINT32_MAX ? UINT32_MAX : (uint32_t)c;
}

/* The partition of table t again with cap slots, keeping the k-mers seen
 * at least min times that are in the hash part range. */
static void part_rebuild(table_t *t, part_t *p, uint64_t cap, uint32_t min, uint64_t range)
{
    part_t q;
    part_init(&q, cap);
    for (uint64_t i = 0; i < p->cap; i++) {
        if (p->count[i] < min) continue;
        uint64_t h = kmer_hash(p->key[i]);
        if (in_range(range, h)) part_add(&q, p->key[i], h, p->count[i]);
    }
    __atomic_add_fetch(&t->bytes, (cap - p->cap) * SLOT, __ATOMIC_RELAXED);
    slots_free(p);
    p->key = q.key;
    p->count = q.count;
    p->cap = q.cap;
    p->size = q.size;
}


/* Slot of x in its partition, or UINT64_MAX. */
static inline uint64_t part_find(const part_t *p, kmer_t x, uint64_t h)
{
    uint64_t i = home(h, p->cap);
    while (p->count[i]) {
        if (p->key[i] == x) return i;
        i = i + 1 == p->cap ? 0 : i + 1;
    }
    return UINT64_MAX;
}

/* The partitions, sized for the k-mers expected (within the byte limit). */
static void new_parts(table_t *t, uint64_t expect)
{
    part_t *parts = sg_calloc(N_PART, sizeof *parts);
    uint64_t cap = expect ? cap_for(expect / N_PART + expect / N_PART / 16) : 1024;
    if (t->max_bytes && cap * SLOT * N_PART > t->max_bytes / 2) cap = t->max_bytes / 2 / SLOT / N_PART;
    if (cap < 16) cap = 16;
    for (int i = 0; i < N_PART; i++) {
        pthread_mutex_init(&parts[i].mu, NULL);
        part_init(&parts[i], cap);
    }
    t->parts = parts;
    t->bytes = (uint64_t)N_PART * cap * SLOT;
}

static void free_parts(table_t *t)
{
    part_t *parts = t->parts;
    for (int i = 0; i < N_PART; i++) {
        pthread_mutex_destroy(&parts[i].mu);
        part_release(&parts[i]);
    }
    free(parts);
}

typedef struct {
    void (*fn)(void *arg, int p);
    void *arg;
    int first, stride;
} parts_job_t;

static void *parts_worker(void *arg)
{
    parts_job_t *job = arg;
    for (int p = job->first; p < N_PART; p += job->stride) job->fn(job->arg, p);
    return NULL;
}

/* fn(arg, p) for every partition p, shared out among n_threads threads. */
static void for_each_part(int n_threads, void (*fn)(void *arg, int p), void *arg)
{
    if (n_threads < 1) n_threads = 1;
    pthread_t *tid = sg_malloc(n_threads * sizeof *tid);
    parts_job_t *jobs = sg_malloc(n_threads * sizeof *jobs);
    uint8_t *running = sg_calloc(n_threads, 1);
    for (int i = 0; i < n_threads; i++) {
        jobs[i] = (parts_job_t){fn, arg, i, n_threads};
        if (i) running[i] = pthread_create(&tid[i], NULL, parts_worker, &jobs[i]) == 0;
    }
    parts_worker(&jobs[0]);
    for (int i = 1; i < n_threads; i++) { /* a thread that did not start: its share here */
        if (running[i]) pthread_join(tid[i], NULL);
        else parts_worker(&jobs[i]);
    }
    free(running);
    free(tid);
    free(jobs);
}

typedef struct {
    table_t *t;
    uint64_t half;
} narrow_job_t;

/* Partition p without the k-mers the narrowing to `half` drops. */
static void narrow_part(void *arg, int p)
{
    narrow_job_t *job = arg;
    part_t *part = &job->t->parts[p];
    uint64_t keep = 0;
    for (uint64_t i = 0; i < part->cap; i++) keep += part->count[i] && in_range(job->half, kmer_hash(part->key[i]));
    part_rebuild(job->t, part, cap_for(keep), 1, job->half);
}

/* Keep the first half of the hash part held, drop the k-mers of the second,
 * unless another thread did so since range was read. Called with no
 * partition locked; takes them all, in order (a thread holds at most one
 * otherwise, so none waits on another). */
static int narrow(table_t *t, uint64_t range)
{
    for (int p = 0; p < N_PART; p++) pthread_mutex_lock(&t->parts[p].mu);
    int r = 0;
    uint32_t n = (uint32_t)(range >> 32);
    if (__atomic_load_n(&t->range, __ATOMIC_RELAXED) != range) {
        /* narrowed meanwhile */
    } else if (n >= MAX_PARTS / 2) {
        r = SG_ERR_SYSTEM;
    } else {
        /* the other threads wait on the locks: the rebuild takes their cores */
        narrow_job_t job = {t, (uint64_t)(2 * (n ? n : 1)) << 32 | 2 * (uint32_t)range};
        for_each_part(t->n_threads, narrow_part, &job);
        __atomic_store_n(&t->range, job.half, __ATOMIC_RELAXED);
    }
    for (int p = N_PART - 1; p >= 0; p--) pthread_mutex_unlock(&t->parts[p].mu);
    return r;
}

/* Per call: k-mers wait in a small buffer per partition, so that each lock
 * is taken for a few hundred insertions. */
#define FLUSH 256

/* Insert a batch into partition p (counts: each k-mer's, or NULL for 1
 * each), dropping the k-mers that are not in the part held; each insertion
 * is a cache miss in a large table, so the slot of the insertion PREFETCH
 * ahead is fetched meanwhile. */
#define PREFETCH 8
static int flush(table_t *t, int p, kmer_t *keys, uint32_t *counts, int n)
{
    part_t *part = &t->parts[p];
    uint64_t h[FLUSH];
    for (int i = 0; i < n; i++) h[i] = kmer_hash(keys[i]);
    pthread_mutex_lock(&part->mu);
    const uint64_t range = __atomic_load_n(&t->range, __ATOMIC_RELAXED); /* fixed while a partition is locked */
    if (range >> 32 > 1) {
        int m = 0;
        for (int i = 0; i < n; i++) {
            if (!in_range(range, h[i])) continue;
            keys[m] = keys[i];
            h[m] = h[i];
            if (counts) counts[m] = counts[i];
            m++;
        }
        n = m;
    }
    if ((part->size + n) * 10 > part->cap * 7) {
        /* doubling, but in small steps as the table nears its limit: fewer passes */
        uint64_t cap = 2 * part->cap;
        if (t->max_bytes && 2 * __atomic_load_n(&t->bytes, __ATOMIC_RELAXED) > t->max_bytes) cap = part->cap + part->cap / 4;
        if (cap < cap_for(part->size + n)) cap = cap_for(part->size + n);
        /* the old slots and the new at once, while it is rebuilt */
        if (t->max_bytes && __atomic_load_n(&t->bytes, __ATOMIC_RELAXED) + cap * SLOT > t->max_bytes) {
            pthread_mutex_unlock(&part->mu);
            int r = narrow(t, range);
            return r < 0 ? r : flush(t, p, keys, counts, n);
        }
        part_rebuild(t, part, cap, 1, 0);
    }
    const uint64_t cap = part->cap;
    for (int i = 0; i < n && i < PREFETCH; i++) {
        __builtin_prefetch(&part->key[home(h[i], cap)], 1);
        __builtin_prefetch(&part->count[home(h[i], cap)], 1);
    }
    for (int i = 0; i < n; i++) {
        if (i + PREFETCH < n) {
            __builtin_prefetch(&part->key[home(h[i + PREFETCH], cap)], 1);
            __builtin_prefetch(&part->count[home(h[i + PREFETCH], cap)], 1);
        }
        part_add(part, keys[i], h[i], counts ? counts[i] : 1);
    }
    pthread_mutex_unlock(&part->mu);
    return 0;
}
#undef PREFETCH

static int add_chunk(table_t *t, const sg_chunk_t *c)
{
    const int k = t->k;
    kmer_t *buf = sg_malloc((size_t)N_PART * FLUSH * sizeof *buf);
    int *fill = sg_calloc(N_PART, sizeof *fill);
    const unsigned char *s = (const unsigned char *)c->seq;
    const size_t n = c->len + c->ov;
    kmer_t fwd = 0, rev = 0;
    int run = 0, r = 0;
    uint64_t added = 0;
    /* the part held when the chunk started; flush drops what a narrowing
     * since then left out */
    const uint64_t range = __atomic_load_n(&t->range, __ATOMIC_RELAXED);
    for (size_t i = 0; i < n && r == 0; i++) {
        if (!kmer_roll(&fwd, &rev, &run, s[i], k)) continue;
        size_t start = i + 1 - k;
        if (start >= c->len) break;
        kmer_t x = fwd < rev ? fwd : rev;
        uint64_t h = kmer_hash(x);
        added++;
        if (!in_range(range, h)) continue;
        int p = (int)(h >> 56);
        buf[p * FLUSH + fill[p]++] = x;
        if (fill[p] == FLUSH) {
            r = flush(t, p, buf + p * FLUSH, NULL, FLUSH);
            fill[p] = 0;
        }
    }
    for (int p = 0; p < N_PART && r == 0; p++)
        if (fill[p]) r = flush(t, p, buf + p * FLUSH, NULL, fill[p]);
    __atomic_add_fetch(&t->total, added, __ATOMIC_RELAXED);
    free(buf);
    free(fill);
    return r;
}

/* Occurrences of the k-mers held (a count that reached UINT32_MAX stays there). */
static uint64_t held_total(const table_t *t)
{
    uint64_t n = 0;
    for (int p = 0; p < N_PART; p++)
        for (uint64_t i = 0; i < t->parts[p].cap; i++) n += t->parts[p].count[i];
    return n;
}

static uint64_t distinct(const table_t *t)
{
    uint64_t n = 0;
    for (int p = 0; p < N_PART; p++) n += t->parts[p].size;
    return n;
}

static void histogram(const table_t *t, uint64_t *hist, int n)
{
    memset(hist, 0, n * sizeof *hist);
    for (int p = 0; p < N_PART; p++) {
        const part_t *part = &t->parts[p];
        for (uint64_t i = 0; i < part->cap; i++)
            if (part->count[i]) hist[part->count[i] < (uint32_t)n - 1 ? part->count[i] : (uint32_t)n - 1]++;
    }
}

static void filter(table_t *t, uint32_t min)
{
    for (int p = 0; p < N_PART; p++) {
        part_t *part = &t->parts[p];
        uint64_t keep = 0;
        for (uint64_t i = 0; i < part->cap; i++) keep += part->count[i] >= min;
        part_rebuild(t, part, 2 * keep + 16, min, 0); /* a load of 0.5: most lookups of the unitigs miss */
    }
}

/* ---- compaction into unitigs ---- */

typedef struct {
    const table_t *t;
    int k;
    uint64_t *base;    /* first global slot of each partition */
    uint32_t *uid;     /* unitig of each kept k-mer (global slot) */
    uint8_t *nb;       /* neighbours of each kept canonical k-mer c: bit b, c's successor with
                        * base b is kept; bit 4 + b, its predecessor with base b is */
    uint64_t n_kept;
} dbg_t;

#define NO_SLOT UINT64_MAX
#define NO_UNITIG UINT32_MAX

/* Count of the k-mer in a global slot (the partition found by binary search). */
static inline uint32_t count_at(const dbg_t *d, uint64_t slot)
{
    int lo = 0, hi = N_PART - 1;
    while (lo < hi) {
        int mid = (lo + hi + 1) / 2;
        if (d->base[mid] <= slot) lo = mid;
        else hi = mid - 1;
    }
    return d->t->parts[lo].count[slot - d->base[lo]];
}

/* Slot of an oriented k-mer, and whether it reads as the reverse complement
 * of the canonical k-mer stored there. */
static inline uint64_t find(const dbg_t *d, kmer_t s, int *rev)
{
    kmer_t r = kmer_rc(s, d->k);
    *rev = r < s;
    kmer_t x = *rev ? r : s;
    uint64_t h = kmer_hash(x);
    int p = (int)(h >> 56);
    uint64_t i = part_find(&d->t->parts[p], x, h);
    return i == UINT64_MAX ? NO_SLOT : d->base[p] + i;
}

static inline int rev4(int x) { return (x & 1) << 3 | (x & 2) << 1 | (x & 4) >> 1 | (x & 8) >> 3; }

/* Bases b of the kept successors (pred 0) or predecessors (pred 1) of the
 * oriented k-mer in slot at orientation rev, as bits: a successor of rc(c)
 * with base b is the reverse complement of c's predecessor with base 3 - b. */
static inline int next_bits(const dbg_t *d, uint64_t slot, int rev, int pred)
{
    int fwd = d->nb[slot] & 15, back = d->nb[slot] >> 4;
    if (rev) return rev4(pred ? fwd : back);
    return pred ? back : fwd;
}

/* The successor (pred 0) or predecessor (pred 1) of s with base b. */
static inline kmer_t step(const dbg_t *d, kmer_t s, int b, int pred)
{
    return pred ? kmer_prev(s, b, d->k) : kmer_next(s, b, d->k);
}

/* The only kept neighbour of s (successor, or predecessor if pred), or 0 if
 * it has none or several; its value, slot and orientation go to the out
 * arguments. */
static int only_next(const dbg_t *d, kmer_t s, uint64_t slot, int rev, int pred, kmer_t *out, uint64_t *out_slot,
                         int *out_rev)
{
    int bits = next_bits(d, slot, rev, pred);
    if (__builtin_popcount(bits) != 1) return 0;
    *out = step(d, s, __builtin_ctz(bits), pred);
    *out_slot = find(d, *out, out_rev);
    return 1;
}

/* The neighbour bits of every kept k-mer of partition p: 8 lookups each.
 * The 8 lookups land in random places of a table much larger than the
 * caches, so all 8 are prefetched before any is probed. */
static void nb_part(void *arg, int p)
{
    dbg_t *d = arg;
    const part_t *parts = d->t->parts;
    const part_t *part = &parts[p];
    for (uint64_t i = 0; i < part->cap; i++) {
        if (!part->count[i]) continue;
        kmer_t c = part->key[i], x[8];
        uint64_t h[8];
        for (int j = 0; j < 8; j++) {
            x[j] = kmer_canon(step(d, c, j & 3, j >> 2), d->k);
            h[j] = kmer_hash(x[j]);
            const part_t *q = &parts[h[j] >> 56];
            __builtin_prefetch(&q->key[home(h[j], q->cap)]);
            __builtin_prefetch(&q->count[home(h[j], q->cap)]);
        }
        uint8_t bits = 0;
        for (int j = 0; j < 8; j++)
            if (part_find(&parts[h[j] >> 56], x[j], h[j]) != UINT64_MAX) bits |= (uint8_t)(1 << j);
        d->nb[d->base[p] + i] = bits;
    }
}

/* A unitig as the walk found it (its sequence at off in the walk's buffer),
 * and how its canonical form differs: reverse complemented (flip), then
 * rotated by rot k-mers (cycles only). */
typedef struct {
    kmer_t first, last; /* as read along the walk */
    kmer_t min;         /* smallest canonical k-mer ... */
    uint64_t min_pos; /* ... its place along the walk */
    uint64_t off, n_k, rot;
    double sum;
    int min_rev, cycle, flip;
} walk_t;

typedef struct {
    kmer_t key; /* first k-mer of the canonical form */
    uint32_t u;
} ukey_t;

static int cmp_ukey(const void *a, const void *b)
{
    kmer_t x = ((const ukey_t *)a)->key, y = ((const ukey_t *)b)->key;
    return (x > y) - (x < y);
}


/* The k-mer spelt by k bases of A/C/G/T. */
static inline kmer_t parse(const char *s, int k)
{
    kmer_t x = 0;
    for (int j = 0; j < k; j++) x = (x << 2) | (kmer_t)sg_dna_code(s[j]);
    return x;
}

static void unitigs(table_t *t, int n_threads, sg_graph_t *g)
{
    dbg_t d = {.t = t, .k = t->k};
    d.base = sg_malloc((N_PART + 1) * sizeof *d.base);
    uint64_t slots = 0;
    for (int p = 0; p < N_PART; p++) {
        d.base[p] = slots;
        slots += t->parts[p].cap;
        d.n_kept += t->parts[p].size;
    }
    d.base[N_PART] = slots;
    d.uid = slots_alloc((slots + 1) * sizeof *d.uid);
    for (uint64_t i = 0; i < slots; i++) d.uid[i] = NO_UNITIG;
    d.nb = slots_alloc(slots + 1);
    for_each_part(n_threads, nb_part, &d);

    /* each unitig as the walk finds it: where its sequence is, its first and
     * last k-mers as they read along it, and for a cycle, where its smallest
     * canonical k-mer is and which way it reads there */
    uint64_t m_unitig = 1024, n_unitig = 0, m_seq = 1 << 16;
    walk_t *w = sg_malloc(m_unitig * sizeof *w);
    char *seq = sg_malloc(m_seq);
    uint64_t at = 0;
    const int k = d.k;

    for (int p = 0; p < N_PART; p++) {
        const part_t *part = &t->parts[p];
        for (uint64_t i = 0; i < part->cap; i++) {
            if (!part->count[i] || d.uid[d.base[p] + i] != NO_UNITIG) continue;
            const kmer_t s = part->key[i];
            const uint64_t s_slot = d.base[p] + i;
            /* back to where the unitig through s starts: while the one predecessor
             * has only this k-mer as successor. A k-mer next to its own reverse
             * complement (a hairpin) ends a unitig whichever way it is reached,
             * so that unitigs do not depend on where a walk starts. */
            kmer_t cur = s, prev, next;
            uint64_t cur_slot = s_slot, prev_slot, next_slot;
            int cur_rev = 0, prev_rev, next_rev;
            for (uint64_t steps = 0; steps < d.n_kept; steps++) {
                if (!only_next(&d, cur, cur_slot, cur_rev, 1, &prev, &prev_slot, &prev_rev)) break;
                if (__builtin_popcount(next_bits(&d, prev_slot, prev_rev, 0)) != 1) break;
                if (prev_slot == cur_slot) break; /* a hairpin */
                if (prev_slot == s_slot) break;   /* a cycle: start at s */
                if (d.uid[prev_slot] != NO_UNITIG) break;
                cur = prev, cur_slot = prev_slot, cur_rev = prev_rev;
            }
            /* then forward, k-mer by k-mer */
            if (n_unitig == m_unitig) {
                m_unitig *= 2;
                w = sg_realloc(w, m_unitig * sizeof *w);
            }
            const uint32_t u = (uint32_t)n_unitig++;
            walk_t *wu = &w[u];
            *wu = (walk_t){.first = cur, .off = at};
            const uint64_t first_slot = cur_slot;
            for (;;) {
                d.uid[cur_slot] = u;
                wu->sum += count_at(&d, cur_slot);
                if (at + k + 1 > m_seq) {
                    m_seq = 2 * (at + k + 1);
                    seq = sg_realloc(seq, m_seq);
                }
                if (wu->n_k == 0)
                    for (int j = 0; j < k; j++) seq[at++] = sg_dna_letter((int)(cur >> (2 * (k - 1 - j))));
                else
                    seq[at++] = sg_dna_letter((int)cur);
                kmer_t c = cur_rev ? kmer_rc(cur, k) : cur;
                if (wu->n_k == 0 || c < wu->min) {
                    wu->min = c;
                    wu->min_pos = wu->n_k;
                    wu->min_rev = cur_rev;
                }
                wu->n_k++;
                wu->last = cur;
                if (!only_next(&d, cur, cur_slot, cur_rev, 0, &next, &next_slot, &next_rev)) break;
                if (__builtin_popcount(next_bits(&d, next_slot, next_rev, 1)) != 1) break;
                if (next_slot == cur_slot) break; /* a hairpin */
                if (d.uid[next_slot] != NO_UNITIG) { /* back at the start: a branch-free cycle */
                    wu->cycle = next_slot == first_slot;
                    break;
                }
                cur = next, cur_slot = next_slot, cur_rev = next_rev;
            }
        }
    }

    /* The canonical form, so that any builder (the GPU's too) gives the same
     * graph byte for byte: a path reads from whichever end makes its first
     * k-mer the smaller, a cycle starts at its smallest canonical k-mer, read
     * forward; unitigs are numbered in the order of those first k-mers (each
     * k-mer lies in one unitig, so no two are equal). */
    ukey_t *order = sg_malloc((n_unitig + 1) * sizeof *order);
    uint64_t longest = 0;
    for (uint64_t u = 0; u < n_unitig; u++) {
        walk_t *wu = &w[u];
        if (wu->cycle) {
            wu->flip = wu->min_rev;
            wu->rot = wu->min_rev ? wu->n_k - 1 - wu->min_pos : wu->min_pos;
            order[u].key = wu->min;
        } else {
            kmer_t r = kmer_rc(wu->last, k);
            wu->flip = r < wu->first;
            order[u].key = wu->flip ? r : wu->first;
        }
        order[u].u = (uint32_t)u;
        if (wu->n_k > longest) longest = wu->n_k;
    }
    qsort(order, n_unitig, sizeof *order, cmp_ukey);

    uint64_t *seq_off = sg_malloc((n_unitig + 1) * sizeof *seq_off);
    uint64_t *kmers = sg_malloc((n_unitig + 1) * sizeof *kmers);
    double *count_sum = sg_malloc((n_unitig + 1) * sizeof *count_sum);
    kmer_t *first = sg_malloc((n_unitig + 1) * sizeof *first), *last = sg_malloc((n_unitig + 1) * sizeof *last);
    uint32_t *new_id = sg_malloc((n_unitig + 1) * sizeof *new_id);
    char *out = sg_malloc(at + 1), *flipped = sg_malloc(longest + k);
    seq_off[0] = 0;
    for (uint64_t i = 0; i < n_unitig; i++) {
        const walk_t *wu = &w[order[i].u];
        const uint64_t len = wu->n_k + k - 1;
        const char *s = seq + wu->off;
        char *o = out + seq_off[i];
        if (wu->flip) {
            for (uint64_t j = 0; j < len; j++) flipped[j] = sg_base_complement(s[len - 1 - j]);
            s = flipped;
        }
        /* a cycle's sequence repeats its first k - 1 bases at the end:
         * s[j] == s[j mod n_k], so the rotation is two copies */
        memcpy(o, s + wu->rot, len - wu->rot);
        memcpy(o + len - wu->rot, s + k - 1, wu->rot);
        seq_off[i + 1] = seq_off[i] + len;
        kmers[i] = wu->n_k;
        count_sum[i] = wu->sum;
        first[i] = order[i].key;
        last[i] = parse(o + len - k, k);
        new_id[order[i].u] = (uint32_t)i;
    }
    free(seq);
    free(flipped);
    free(order);
    free(w);
    seq = out;

    /* links between unitig ends: from u+ (its last k-mer) and u- (the reverse
     * complement of its first) to whichever unitig end each successor is */
    uint64_t m_edge = 4 * n_unitig + 16, n_edge = 0;
    sg_edge_t *e = sg_malloc(m_edge * sizeof *e);
    for (uint32_t u = 0; u < n_unitig; u++) {
        for (int dir = 0; dir < 2; dir++) {
            kmer_t end = dir ? kmer_rc(first[u], k) : last[u];
            int end_rev;
            uint64_t end_slot = find(&d, end, &end_rev);
            int bits = next_bits(&d, end_slot, end_rev, 0);
            for (int b = 0; b < 4; b++) {
                if (!(bits >> b & 1)) continue;
                kmer_t x = step(&d, end, b, 0);
                int x_rev;
                uint64_t sl = find(&d, x, &x_rev);
                uint32_t v = new_id[d.uid[sl]];
                int vdir;
                if (x == first[v]) vdir = 0;
                else if (x == kmer_rc(last[v], k)) vdir = 1;
                else continue; /* cannot happen: compaction ends unitigs at every branch */
                if (n_edge == m_edge) {
                    m_edge *= 2;
                    e = sg_realloc(e, m_edge * sizeof *e);
                }
                e[n_edge++] = (sg_edge_t){sg_vert(u, dir), sg_vert(v, vdir), (uint32_t)(k - 1)};
            }
        }
    }
    memset(g, 0, sizeof *g);
    g->oriented = 1;
    g->k = k;
    g->n = (uint32_t)n_unitig;
    g->n_vert = 2 * g->n;
    g->seq = seq;
    g->seq_off = seq_off;
    g->kmers = kmers;
    g->count_sum = count_sum;
    sg_graph_set_edges(g, e, n_edge);
    free(e);
    free(first);
    free(last);
    free(new_id);
    free(d.base);
    munmap(d.uid, (slots + 1) * sizeof *d.uid);
    munmap(d.nb, slots + 1);
}


/* ---- the table as an sg_kmer_table_t ---- */

static int kt_add(sg_kmer_table_t *kt, const sg_chunk_t *c)
{
    table_t *t = kt->priv;
    int r = add_chunk(t, c);
    if (r < 0)
        snprintf(kt->err, sizeof kt->err, "the k-mer table does not fit in %.1f MB even as 1/%u of the k-mers",
                 t->max_bytes / 1048576.0, MAX_PARTS);
    return r;
}

static int kt_finish(sg_kmer_table_t *kt)
{
    const table_t *t = kt->priv;
    uint64_t range = __atomic_load_n(&t->range, __ATOMIC_RELAXED);
    kt->part = (uint32_t)range;
    kt->n_parts = range >> 32 ? (uint32_t)(range >> 32) : 1;
    return 0;
}

static uint64_t kt_distinct(const sg_kmer_table_t *kt) { return distinct(kt->priv); }

/* k-mers counted: of a part, those of its k-mers (the others were read too,
 * some counted before the part narrowed) */
static uint64_t kt_total(const sg_kmer_table_t *kt)
{
    const table_t *t = kt->priv;
    return t->range >> 32 > 1 ? held_total(t) : t->total;
}

static int kt_histogram(sg_kmer_table_t *kt, uint64_t *hist, int n)
{
    histogram(kt->priv, hist, n);
    return 0;
}

static int kt_filter(sg_kmer_table_t *kt, uint32_t min)
{
    filter(kt->priv, min);
    return 0;
}

static int kt_unitigs(sg_kmer_table_t *kt, sg_graph_t *g)
{
    table_t *t = kt->priv;
    unitigs(t, t->n_threads, g);
    return 0;
}

/* A k-mer and its count, for sorting. */
typedef struct {
    kmer_t key;
    uint32_t count;
} pair_t;

/* LSD radix sort of a[0..n) by key (its low bits), 11 bits a pass,
 * through tmp; passes in which every key has the same digit are skipped.
 * Returns a or tmp, whichever holds the sorted pairs. */
#define DIGIT 11
static pair_t *sort_pairs(pair_t *a, pair_t *tmp, uint64_t n, int bits)
{
    const int passes = (bits + DIGIT - 1) / DIGIT;
    uint64_t (*cnt)[1 << DIGIT] = sg_calloc(passes, sizeof *cnt);
    for (uint64_t i = 0; i < n; i++)
        for (int d = 0; d < passes; d++) cnt[d][(uint64_t)(a[i].key >> (d * DIGIT)) & ((1 << DIGIT) - 1)]++;
    for (int d = 0; d < passes; d++) {
        uint64_t sum = 0;
        int one = 0;
        for (int b = 0; b < 1 << DIGIT; b++) {
            one |= cnt[d][b] == n;
            uint64_t c = cnt[d][b];
            cnt[d][b] = sum;
            sum += c;
        }
        if (one) continue;
        for (uint64_t i = 0; i < n; i++) tmp[cnt[d][(uint64_t)(a[i].key >> (d * DIGIT)) & ((1 << DIGIT) - 1)]++] = a[i];
        pair_t *x = a;
        a = tmp;
        tmp = x;
    }
    free(cnt);
    return a;
}
#undef DIGIT

static int kt_take(sg_kmer_table_t *kt, uint32_t min, sg_kmer_counts_t *out)
{
    table_t *t = kt->priv;
    /* each partition's pairs taken as it is freed, so that the table and
     * the pairs are never held at once; then gathered and sorted */
    pair_t *taken[N_PART];
    uint64_t n_taken[N_PART], n = 0;
    for (int p = 0; p < N_PART; p++) {
        part_t *part = &t->parts[p];
        uint64_t m = 0;
        for (uint64_t i = 0; i < part->cap; i++) m += part->count[i] >= min;
        taken[p] = sg_malloc((m + 1) * sizeof **taken);
        n_taken[p] = 0;
        for (uint64_t i = 0; i < part->cap; i++)
            if (part->count[i] >= min) taken[p][n_taken[p]++] = (pair_t){part->key[i], part->count[i]};
        n += m;
        __atomic_sub_fetch(&t->bytes, part->cap * SLOT, __ATOMIC_RELAXED);
        part_release(part);
    }
    pair_t *a = sg_malloc((n + 1) * sizeof *a);
    for (uint64_t p = 0, at = 0; p < N_PART; at += n_taken[p++]) {
        memcpy(a + at, taken[p], n_taken[p] * sizeof *a);
        free(taken[p]);
    }
    pair_t *tmp = sg_malloc((n + 1) * sizeof *tmp), *sorted = sort_pairs(a, tmp, n, 2 * t->k);
    free(sorted == a ? tmp : a);
    a = sorted;
    const int words = (int)(sizeof(kmer_t) / 8);
    out->k = t->k;
    out->n = n;
    out->kmer = sg_malloc((n * words + 1) * sizeof *out->kmer);
    out->count = sg_malloc((n + 1) * sizeof *out->count);
    for (uint64_t i = 0; i < n; i++) {
        if (words == 2) out->kmer[2 * i] = (uint64_t)(a[i].key >> 32 >> 32);
        out->kmer[words * i + words - 1] = (uint64_t)a[i].key;
        out->count[i] = a[i].count;
    }
    free(a);
    return 0;
}

static int kt_add_counts(sg_kmer_table_t *kt, const sg_kmer_counts_t *kc)
{
    table_t *t = kt->priv;
    const int words = (int)(sizeof(kmer_t) / 8);
    kmer_t *buf = sg_malloc((size_t)N_PART * FLUSH * sizeof *buf);
    uint32_t *cbuf = sg_malloc((size_t)N_PART * FLUSH * sizeof *cbuf);
    int *fill = sg_calloc(N_PART, sizeof *fill);
    int r = 0;
    for (uint64_t i = 0; i < kc->n && r == 0; i++) {
        kmer_t x = kc->kmer[words * i + words - 1];
        if (words == 2) x |= (kmer_t)kc->kmer[2 * i] << 32 << 32;
        int p = (int)(kmer_hash(x) >> 56);
        buf[p * FLUSH + fill[p]] = x;
        cbuf[p * FLUSH + fill[p]++] = kc->count[i];
        if (fill[p] == FLUSH) {
            r = flush(t, p, buf + p * FLUSH, cbuf + p * FLUSH, FLUSH);
            fill[p] = 0;
        }
    }
    for (int p = 0; p < N_PART && r == 0; p++)
        if (fill[p]) r = flush(t, p, buf + p * FLUSH, cbuf + p * FLUSH, fill[p]);
    free(buf);
    free(cbuf);
    free(fill);
    return r;
}

static void kt_free(sg_kmer_table_t *kt)
{
    free_parts(kt->priv);
    free(kt->priv);
    free(kt);
}

int TABLE_CTOR(const sg_kmer_opts_t *o, sg_kmer_table_t **out)
{
    table_t *t = sg_calloc(1, sizeof *t);
    t->k = o->k;
    t->n_threads = o->n_threads > 0 ? o->n_threads : 1;
    t->range = o->n_parts > 1 ? (uint64_t)o->n_parts << 32 | o->part : 0;
    t->max_bytes = o->max_bytes;
    new_parts(t, o->expect);
    sg_kmer_table_t *kt = sg_calloc(1, sizeof *kt);
    kt->name = "cpu";
    kt->add = kt_add;
    kt->finish = kt_finish;
    kt->distinct = kt_distinct;
    kt->total = kt_total;
    kt->histogram = kt_histogram;
    kt->filter = kt_filter;
    kt->unitigs = kt_unitigs;
    kt->take = kt_take;
    kt->add_counts = kt_add_counts;
    kt->free = kt_free;
    kt->part = o->n_parts > 1 ? o->part : 0;
    kt->n_parts = o->n_parts > 1 ? o->n_parts : 1;
    kt->priv = t;
    *out = kt;
    return 0;
}

#if SG_KMER_BITS == 64
void sg_kmer_counts_free(sg_kmer_counts_t *kc)
{
    free(kc->kmer);
    free(kc->count);
    kc->kmer = NULL;
    kc->count = NULL;
    kc->n = 0;
}

int sg_kmer_table_cpu(const sg_kmer_opts_t *o, sg_kmer_table_t **out, char *err, size_t errsz)
{
    (void)err, (void)errsz; /* it cannot fail */
    return o->k > 31 ? sg_kmer_table_cpu128(o, out) : sg_kmer_table_cpu64(o, out);
}
#endif
