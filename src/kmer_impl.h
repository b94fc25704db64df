/* The k-mer table and the unitig compaction, for one word type. kmer.c
 * includes this twice: KT uint64_t (k <= 31) and unsigned __int128 (k <= 63),
 * with FN(x) naming x_64 or x_128. */

typedef struct {
    pthread_mutex_t mu;
    KT *key;
    uint32_t *count; /* 0: empty slot */
    uint64_t cap;    /* a power of two */
    uint64_t size;
} FN(part_t);

#define FN_PARTS(t) ((FN(part_t) *)(t)->parts)

static inline uint64_t FN(hash)(KT x)
{
#if KT_WIDE
    return mix64((uint64_t)x ^ mix64((uint64_t)(x >> 64)));
#else
    return mix64(x);
#endif
}

static inline KT FN(rc)(KT x, int k)
{
#if KT_WIDE
    KT r = ((KT)rev2_64(~(uint64_t)x) << 64) | rev2_64(~(uint64_t)(x >> 64));
    return r >> (128 - 2 * k);
#else
    return rev2_64(~x) >> (64 - 2 * k);
#endif
}

static inline KT FN(canon)(KT x, int k)
{
    KT r = FN(rc)(x, k);
    return r < x ? r : x;
}

static void FN(part_init)(FN(part_t) *p, uint64_t cap)
{
    p->cap = cap;
    p->size = 0;
    p->key = sg_malloc(cap * sizeof *p->key);
    p->count = sg_calloc(cap, sizeof *p->count);
}

/* Add n to x's count (inserting it), partition locked. */
static inline void FN(part_add)(FN(part_t) *p, KT x, uint64_t h, uint32_t n)
{
    uint64_t mask = p->cap - 1, i = h & mask;
    while (p->count[i] && p->key[i] != x) i = (i + 1) & mask;
    if (!p->count[i]) {
        p->key[i] = x;
        p->size++;
    }
    uint64_t c = (uint64_t)p->count[i] + n;
    p->count[i] = c > UINT32_MAX ? UINT32_MAX : (uint32_t)c;
}

/* The partition again with cap slots, keeping the k-mers seen at least min times. */
static void FN(part_rebuild)(FN(part_t) *p, uint64_t cap, uint32_t min)
{
    FN(part_t) q;
    FN(part_init)(&q, cap);
    for (uint64_t i = 0; i < p->cap; i++)
        if (p->count[i] >= min) FN(part_add)(&q, p->key[i], FN(hash)(p->key[i]), p->count[i]);
    free(p->key);
    free(p->count);
    p->key = q.key;
    p->count = q.count;
    p->cap = q.cap;
    p->size = q.size;
}

/* Slot of x in its partition, or UINT64_MAX. */
static inline uint64_t FN(part_find)(const FN(part_t) *p, KT x, uint64_t h)
{
    uint64_t mask = p->cap - 1, i = h & mask;
    while (p->count[i]) {
        if (p->key[i] == x) return i;
        i = (i + 1) & mask;
    }
    return UINT64_MAX;
}

static void FN(new_parts)(sg_kmers_t *t)
{
    FN(part_t) *parts = sg_calloc(N_PART, sizeof *parts);
    for (int i = 0; i < N_PART; i++) {
        pthread_mutex_init(&parts[i].mu, NULL);
        FN(part_init)(&parts[i], 1024);
    }
    t->parts = parts;
}

static void FN(free_parts)(sg_kmers_t *t)
{
    FN(part_t) *parts = FN_PARTS(t);
    for (int i = 0; i < N_PART; i++) {
        pthread_mutex_destroy(&parts[i].mu);
        free(parts[i].key);
        free(parts[i].count);
    }
    free(parts);
}

/* Per call: k-mers wait in a small buffer per partition, so that each lock
 * is taken for a few hundred insertions. */
#define FLUSH 256

static void FN(flush)(sg_kmers_t *t, int p, const KT *keys, int n)
{
    FN(part_t) *part = &FN_PARTS(t)[p];
    pthread_mutex_lock(&part->mu);
    if ((part->size + n) * 10 > part->cap * 7) {
        uint64_t cap = part->cap;
        while ((part->size + n) * 10 > cap * 7) cap *= 2;
        FN(part_rebuild)(part, cap, 1);
    }
    for (int i = 0; i < n; i++) FN(part_add)(part, keys[i], FN(hash)(keys[i]), 1);
    pthread_mutex_unlock(&part->mu);
}

static void FN(add_chunk)(sg_kmers_t *t, const sg_chunk_t *c)
{
    const int k = t->k;
    const KT mask = k * 2 == (int)sizeof(KT) * 8 ? ~(KT)0 : ((KT)1 << (2 * k)) - 1;
    const int shift = 2 * (k - 1);
    KT *buf = sg_malloc((size_t)N_PART * FLUSH * sizeof *buf);
    int *fill = sg_calloc(N_PART, sizeof *fill);
    const unsigned char *s = (const unsigned char *)c->seq;
    const size_t n = c->len + c->ov;
    KT fwd = 0, rev = 0;
    int run = 0;
    uint64_t added = 0;
    for (size_t i = 0; i < n; i++) {
        int b = base_code[s[i]];
        if (b < 0) {
            run = 0;
            continue;
        }
        fwd = ((fwd << 2) | (KT)b) & mask;
        rev = (rev >> 2) | ((KT)(3 - b) << shift);
        if (++run < k) continue;
        size_t start = i + 1 - k;
        if (start >= c->len) break;
        KT x = fwd < rev ? fwd : rev;
        int p = (int)(FN(hash)(x) >> 56);
        buf[p * FLUSH + fill[p]++] = x;
        added++;
        if (fill[p] == FLUSH) {
            FN(flush)(t, p, buf + p * FLUSH, FLUSH);
            fill[p] = 0;
        }
    }
    for (int p = 0; p < N_PART; p++)
        if (fill[p]) FN(flush)(t, p, buf + p * FLUSH, fill[p]);
    __atomic_add_fetch(&t->total, added, __ATOMIC_RELAXED);
    free(buf);
    free(fill);
}

static uint64_t FN(distinct)(const sg_kmers_t *t)
{
    uint64_t n = 0;
    for (int p = 0; p < N_PART; p++) n += FN_PARTS(t)[p].size;
    return n;
}

static void FN(histogram)(const sg_kmers_t *t, uint64_t *hist, int n)
{
    memset(hist, 0, n * sizeof *hist);
    for (int p = 0; p < N_PART; p++) {
        const FN(part_t) *part = &FN_PARTS(t)[p];
        for (uint64_t i = 0; i < part->cap; i++)
            if (part->count[i]) hist[part->count[i] < (uint32_t)n - 1 ? part->count[i] : (uint32_t)n - 1]++;
    }
}

static void FN(filter)(sg_kmers_t *t, uint32_t min)
{
    for (int p = 0; p < N_PART; p++) {
        FN(part_t) *part = &FN_PARTS(t)[p];
        uint64_t keep = 0;
        for (uint64_t i = 0; i < part->cap; i++) keep += part->count[i] >= min;
        uint64_t cap = 16;
        while (cap < 2 * keep) cap *= 2;
        FN(part_rebuild)(part, cap, min);
    }
}

/* ---- compaction into unitigs ---- */

typedef struct {
    const sg_kmers_t *t;
    int k;
    KT mask;
    uint64_t *base;    /* first global slot of each partition */
    uint32_t *uid;     /* unitig of each kept k-mer (global slot) */
    uint64_t n_kept;
} FN(dbg_t);

#define NO_SLOT UINT64_MAX
#define NO_UNITIG UINT32_MAX

/* Global slot of an oriented k-mer (looked up by its canonical form), and
 * its count if asked. */
static inline uint64_t FN(lookup)(const FN(dbg_t) *d, KT s, uint32_t *count)
{
    KT x = FN(canon)(s, d->k);
    uint64_t h = FN(hash)(x);
    int p = (int)(h >> 56);
    const FN(part_t) *part = &FN_PARTS(d->t)[p];
    uint64_t i = FN(part_find)(part, x, h);
    if (i == UINT64_MAX) return NO_SLOT;
    if (count) *count = part->count[i];
    return d->base[p] + i;
}

static inline uint64_t FN(slot)(const FN(dbg_t) *d, KT s) { return FN(lookup)(d, s, NULL); }

/* Successors (and predecessors) of an oriented k-mer among the kept ones:
 * how many, and the last one found. */
static int FN(succs)(const FN(dbg_t) *d, KT s, KT *out)
{
    int n = 0;
    for (int b = 0; b < 4; b++) {
        KT x = ((s << 2) | (KT)b) & d->mask;
        if (FN(slot)(d, x) != NO_SLOT) {
            n++;
            *out = x;
        }
    }
    return n;
}

static int FN(preds)(const FN(dbg_t) *d, KT s, KT *out)
{
    int n = 0;
    for (int b = 0; b < 4; b++) {
        KT x = (s >> 2) | ((KT)b << (2 * (d->k - 1)));
        if (FN(slot)(d, x) != NO_SLOT) {
            n++;
            *out = x;
        }
    }
    return n;
}

static void FN(unitigs)(sg_kmers_t *t, sg_graph_t *g)
{
    FN(dbg_t) d = {.t = t, .k = t->k};
    d.mask = 2 * d.k == (int)sizeof(KT) * 8 ? ~(KT)0 : ((KT)1 << (2 * d.k)) - 1;
    d.base = sg_malloc((N_PART + 1) * sizeof *d.base);
    uint64_t slots = 0;
    for (int p = 0; p < N_PART; p++) {
        d.base[p] = slots;
        slots += FN_PARTS(t)[p].cap;
        d.n_kept += FN_PARTS(t)[p].size;
    }
    d.base[N_PART] = slots;
    d.uid = sg_malloc((slots + 1) * sizeof *d.uid);
    for (uint64_t i = 0; i < slots; i++) d.uid[i] = NO_UNITIG;

    /* each unitig: its first and last k-mers as they read along it */
    uint64_t m_unitig = 1024, n_unitig = 0, m_seq = 1 << 16;
    KT *first = sg_malloc(m_unitig * sizeof *first), *last = sg_malloc(m_unitig * sizeof *last);
    uint64_t *seq_off = sg_malloc((m_unitig + 1) * sizeof *seq_off);
    uint64_t *kmers = sg_malloc(m_unitig * sizeof *kmers);
    double *count_sum = sg_malloc(m_unitig * sizeof *count_sum);
    char *seq = sg_malloc(m_seq);
    seq_off[0] = 0;
    const int k = d.k;

    for (int p = 0; p < N_PART; p++) {
        const FN(part_t) *part = &FN_PARTS(t)[p];
        for (uint64_t i = 0; i < part->cap; i++) {
            if (!part->count[i] || d.uid[d.base[p] + i] != NO_UNITIG) continue;
            const KT s = part->key[i];
            /* back to where the unitig through s starts */
            KT cur = s, prev, next;
            for (uint64_t steps = 0; steps < d.n_kept; steps++) {
                if (FN(preds)(&d, cur, &prev) != 1 || FN(succs)(&d, prev, &next) != 1) break;
                if (FN(canon)(prev, k) == FN(canon)(s, k)) break; /* a cycle: start at s */
                if (d.uid[FN(slot)(&d, prev)] != NO_UNITIG) break;
                cur = prev;
            }
            /* then forward, k-mer by k-mer */
            if (n_unitig == m_unitig) {
                m_unitig *= 2;
                first = sg_realloc(first, m_unitig * sizeof *first);
                last = sg_realloc(last, m_unitig * sizeof *last);
                seq_off = sg_realloc(seq_off, (m_unitig + 1) * sizeof *seq_off);
                kmers = sg_realloc(kmers, m_unitig * sizeof *kmers);
                count_sum = sg_realloc(count_sum, m_unitig * sizeof *count_sum);
            }
            const uint32_t u = (uint32_t)n_unitig++;
            uint64_t at = seq_off[u], n_k = 0;
            double sum = 0;
            first[u] = cur;
            for (;;) {
                uint32_t cnt = 0;
                uint64_t sl = FN(lookup)(&d, cur, &cnt);
                d.uid[sl] = u;
                sum += cnt;
                if (at + k + 1 > m_seq) {
                    m_seq = 2 * (at + k + 1);
                    seq = sg_realloc(seq, m_seq);
                }
                if (n_k == 0)
                    for (int j = 0; j < k; j++) seq[at++] = "ACGT"[(int)(cur >> (2 * (k - 1 - j))) & 3];
                else
                    seq[at++] = "ACGT"[(int)cur & 3];
                n_k++;
                last[u] = cur;
                if (FN(succs)(&d, cur, &next) != 1 || FN(preds)(&d, next, &prev) != 1) break;
                if (d.uid[FN(slot)(&d, next)] != NO_UNITIG) break; /* back at the start of a cycle, or used */
                cur = next;
            }
            seq_off[u + 1] = at;
            kmers[u] = n_k;
            count_sum[u] = sum;
        }
    }

    /* links between unitig ends: from u+ (its last k-mer) and u- (the reverse
     * complement of its first) to whichever unitig end each successor is */
    uint64_t m_edge = 4 * n_unitig + 16, n_edge = 0;
    sg_edge_t *e = sg_malloc(m_edge * sizeof *e);
    for (uint32_t u = 0; u < n_unitig; u++) {
        for (int dir = 0; dir < 2; dir++) {
            KT end = dir ? FN(rc)(first[u], k) : last[u];
            for (int b = 0; b < 4; b++) {
                KT x = ((end << 2) | (KT)b) & d.mask;
                uint64_t sl = FN(slot)(&d, x);
                if (sl == NO_SLOT) continue;
                uint32_t v = d.uid[sl];
                int vdir;
                if (x == first[v]) vdir = 0;
                else if (x == FN(rc)(last[v], k)) vdir = 1;
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
    free(d.base);
    free(d.uid);
}

#undef FN_PARTS
#undef FLUSH
#undef NO_SLOT
#undef NO_UNITIG
