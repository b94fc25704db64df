/* The cpu k-mer table of seqgpu scc, counted the way KMC 3 counts (Kokot,
 * Dlugosz and Deorowicz, Bioinformatics 2017): one pass over the reads on
 * all threads cuts them into super-k-mers, runs of k-mers whose minimizers
 * fall in one bin, packed 2 bits a base into that bin's blocks; then each
 * bin is counted alone, in a hash table small enough for the cache, on all
 * threads, with no lock. A bin's k-mers seen at least min_keep times (the
 * least a threshold can be) go on to a store cut by hash into parts; the
 * filter builds from them the table the unitigs look k-mers up in: the
 * kept k-mers bucketed by hash, 2 bits a base and a one-byte count (rare
 * larger counts in a side table). Then the compaction of the kept k-mers'
 * de Bruijn graph into unitigs, on all threads too.
 *
 * Bounded memory (max_bytes): blocks of super-k-mers and of counted k-mers
 * live in one pool; a full block that would take the pool past its bytes
 * goes to one unnamed file in tmp_dir instead (with a checksum), and is read
 * back when its bin or part is counted or built. One pass over the reads,
 * one file, whatever the limit.
 *
 * Compiled once per key width (SG_KMER_BITS 64: k <= 31; 128: k <= 63),
 * each giving its constructor; sg_kmer_table_cpu (src/scc/backend.h) picks by k. */
#define _GNU_SOURCE
#include "scc/dbg/kmers.h"
#include "core/dna.h"
#include "core/log.h"
#include "core/pipeline.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#if SG_KMER_BITS == 64
typedef uint64_t kmer_t;
#define kmer_hash sg_kmer64_hash
#define kmer_rc sg_kmer64_rc
#define kmer_canon sg_kmer64_canon
#define kmer_next sg_kmer64_next
#define TABLE_CTOR sg_kmer_table_cpu64
#elif SG_KMER_BITS == 128
typedef sg_kmer128_t kmer_t;
#define kmer_hash sg_kmer128_hash
#define kmer_rc sg_kmer128_rc
#define kmer_canon sg_kmer128_canon
#define kmer_next sg_kmer128_next
#define TABLE_CTOR sg_kmer_table_cpu128
#else
#error "build with SG_KMER_BITS 64 or 128"
#endif

/* A block: the unit of the pool, of a bin or part's list, and of the spill
 * file. A page, so that the pool gives back whole pages. */
#define BLOCK 4096
/* the most k-mers of one super-k-mer record (its first byte) */
#define RUN_MAX 255
/* bytes a block of records leaves unused at its end, so that the k - 1
 * bases a record starts with are read at once (16 bytes) */
#define SLACK 16
/* the store of counted k-mers, cut by the top bits of the bucket hash */
#define PART_BITS 8
#define N_PART (1 << PART_BITS)
/* bins: as many as keep a bin near BIN_KMERS k-mers, within 1..MAX_BINS */
#define BIN_KMERS (1u << 16)
#define MAX_BINS 4096
/* a bin is counted in at most MAX_SLICES hash slices (a byte of its table's hash) */
#define MAX_SLICES 256
/* blocks a thread gathers before one write to the spill file */
#define STAGE 16
/* blocks a thread keeps at hand, taken from and given back to the pool in halves */
#define CACHE 32
/* the bucket hash: Fibonacci hashing of the k-mer hash, so that every bit
 * of it counts (a --part run's k-mers share bits 24-55) */
#define FIB 0x9e3779b97f4a7c15ull
/* slots: kept k-mers are numbered below 2^31, a link holds slot << 1 | orientation */
#define MAX_KEPT ((1u << 31) - 1)
#define NO_LINK UINT32_MAX
#define NO_UNITIG UINT32_MAX

static inline uint64_t bucket_hash(uint64_t h) { return h * FIB; }

/* ---- the pool of blocks ---- */

typedef struct {
    pthread_mutex_t mu;
    void *free;            /* free blocks, linked through their first word */
    void **released;       /* free blocks whose pages went back to the system (untouched since) */
    uint64_t n_released;
    unsigned char **slabs; /* mapped in SLAB bytes; blocks are carved from the last */
    int n_slabs;
    size_t carved;         /* bytes of the last slab handed out */
    uint64_t limit;        /* bytes of blocks past which a full block is spilled (0: none) */
    uint64_t held, peak;   /* bytes of blocks carved (resident), and the most */
} pool_t;

#define SLAB (16u << 20)

static void *map_bytes(size_t bytes)
{
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) {
        sg_error("out of memory (mapping %zu bytes)", bytes);
        exit(SG_EXIT_SYSTEM);
    }
    return p;
}

/* A free block, or a new one; NULL when only a new one would do and the
 * pool is at its limit and may_fail is set. Pool locked. */
static void *pool_take(pool_t *p, int may_fail)
{
    if (p->free) {
        void *b = p->free;
        p->free = *(void **)b;
        return b;
    }
    if (may_fail && p->limit && p->held + BLOCK > p->limit) return NULL;
    p->held += BLOCK;
    if (p->held > p->peak) p->peak = p->held;
    if (p->n_released) return p->released[--p->n_released];
    if (!p->n_slabs || p->carved == SLAB) {
        p->slabs = sg_realloc(p->slabs, (p->n_slabs + 1) * sizeof *p->slabs);
        p->slabs[p->n_slabs++] = map_bytes(SLAB);
        p->carved = 0;
    }
    void *b = p->slabs[p->n_slabs - 1] + p->carved;
    p->carved += BLOCK;
    return b;
}

/* A large array, zeroed, on huge pages where the system gives them on
 * request: the kept k-mers' table and the compaction's arrays are probed at
 * random, and 4 kB pages would make most probes a TLB miss too. */
static void *big_alloc(size_t bytes)
{
    void *p = map_bytes(bytes ? bytes : 1);
    if (bytes >= (2u << 20)) madvise(p, bytes, MADV_HUGEPAGE);
    return p;
}

static void big_free(void *p, size_t bytes)
{
    if (p) munmap(p, bytes ? bytes : 1);
}

static int cmp_ptr(const void *a, const void *b)
{
    uintptr_t x = (uintptr_t) * (void *const *)a, y = (uintptr_t) * (void *const *)b;
    return (x > y) - (x < y);
}

/* Free blocks go back to the system, page by page (runs of them at once),
 * and are handed out again later: what the table holds is what it uses. */
static void pool_release(pool_t *p)
{
    pthread_mutex_lock(&p->mu);
    uint64_t n = 0;
    for (void *b = p->free; b; b = *(void **)b) n++;
    p->released = sg_realloc(p->released, (p->n_released + n + 1) * sizeof *p->released);
    void **all = p->released + p->n_released;
    n = 0;
    for (void *b = p->free; b; b = *(void **)b) all[n++] = b;
    qsort(all, n, sizeof *all, cmp_ptr);
    for (uint64_t i = 0; i < n;) {
        uint64_t j = i + 1;
        while (j < n && (unsigned char *)all[j] == (unsigned char *)all[j - 1] + BLOCK) j++;
        madvise(all[i], (j - i) * BLOCK, MADV_DONTNEED);
        i = j;
    }
    p->n_released += n;
    p->free = NULL;
    p->held -= n * BLOCK;
    pthread_mutex_unlock(&p->mu);
}

/* A thread's blocks at hand. */
typedef struct {
    void *b[CACHE];
    int n;
} cache_t;

/* A block: from the cache, else a few from the pool; NULL when the pool is
 * at its limit (may_fail) and there is no free one. */
static void *block_get(pool_t *p, cache_t *c, int may_fail)
{
    if (c->n) return c->b[--c->n];
    pthread_mutex_lock(&p->mu);
    void *b = pool_take(p, may_fail);
    while (b && c->n < CACHE / 2 && p->free) c->b[c->n++] = pool_take(p, 0);
    pthread_mutex_unlock(&p->mu);
    return b;
}

static void block_put(pool_t *p, cache_t *c, void *b)
{
    if (c->n == CACHE) {
        pthread_mutex_lock(&p->mu);
        while (c->n > CACHE / 2) {
            void *x = c->b[--c->n];
            *(void **)x = p->free;
            p->free = x;
        }
        pthread_mutex_unlock(&p->mu);
    }
    c->b[c->n++] = b;
}

static void cache_flush(pool_t *p, cache_t *c)
{
    pthread_mutex_lock(&p->mu);
    while (c->n) {
        void *x = c->b[--c->n];
        *(void **)x = p->free;
        p->free = x;
    }
    pthread_mutex_unlock(&p->mu);
}

/* ---- lists of blocks, in memory or in the spill file ---- */

typedef struct blk {
    struct blk *next;
    unsigned char *data; /* in the pool, or NULL: in the spill file at off */
    uint64_t off;
    uint32_t len;        /* bytes used */
    uint32_t sum;        /* on disk: the CRC-32 of those bytes */
    uint32_t items;      /* k-mers (super-k-mer blocks) or pairs (counted blocks) */
} blk_t;

/* Descriptors are carved from arrays that live as long as the table. */
#define DESC_CHUNK 1024
typedef struct {
    blk_t *at;
    int left;
} descs_t;

typedef struct {
    int fd;           /* -1 until a block is spilled */
    uint64_t end;     /* bytes reserved so far (atomic) */
    uint64_t read;    /* bytes read back */
} spill_t;

/* ---- the table ---- */

/* The kept k-mers, after the filter: bucket b (the top bits of the bucket
 * hash) holds key[off[b] .. off[b + 1]); slot i has count[i], or the count
 * of slot i in big when count[i] is 255. */
typedef struct {
    uint64_t slot;
    uint32_t count;
} big_t;

typedef struct {
    kmer_t *key;
    uint8_t *count;
    uint32_t *off;
    int bits;          /* buckets: 2^bits */
    uint64_t n;
    big_t *big;        /* counts above 254, by slot */
    uint64_t n_big;
} kept_t;

typedef struct worker worker_t;
typedef struct counter counter_t;

typedef struct {
    int k, m, n_threads;
    uint32_t part, n_parts;    /* the hash part counted (n_parts <= 1: all) */
    uint32_t min_keep;         /* k-mers seen fewer times are only counted */
    uint64_t max_bytes;        /* the most bytes held in memory (0: no limit) */
    uint32_t n_bins;
    const char *tmp_dir;
    pool_t pool;
    pthread_mutex_t mu;        /* the descriptors' arrays, the workers' lists, the spill file's opening, the first error */
    blk_t **desc_chunks;
    int n_desc_chunks;
    blk_t **bins;              /* super-k-mer blocks of each bin (pushed without a lock) */
    uint64_t *bin_kmers;       /* k-mers in each bin (atomic) */
    blk_t *parts[N_PART];      /* blocks of counted k-mers (pairs) */
    uint64_t part_pairs[N_PART];
    worker_t *workers, *idle;  /* every binning worker; those not in an add() call */
    counter_t *loader;         /* add_counts' */
    spill_t spill;
    int failed;                /* an error was met (err says which) */
    int counted;
    uint64_t total, distinct, superkmers, slices;
    uint64_t slice_bytes;      /* the most a thread's bin table takes under a byte limit (0: no limit) */
    uint64_t hist[SG_HIST_BINS]; /* distinct k-mers seen c times; the last bin the rest */
    kept_t kept;
    double sec[3];             /* counting the bins, building the kept table, the unitigs */
    char *err;                 /* the table's err */
    size_t errsz;
} table_t;

/* The first error of any thread goes to the table's message. */
static int fail(table_t *t, int code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int fail(table_t *t, int code, const char *fmt, ...)
{
    pthread_mutex_lock(&t->mu);
    if (!t->failed) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(t->err, t->errsz, fmt, ap);
        va_end(ap);
        t->failed = 1;
    }
    pthread_mutex_unlock(&t->mu);
    return code;
}

static blk_t *desc_new(table_t *t, descs_t *d)
{
    if (!d->left) {
        blk_t *a = sg_calloc(DESC_CHUNK, sizeof *a);
        pthread_mutex_lock(&t->mu);
        t->desc_chunks = sg_realloc(t->desc_chunks, (t->n_desc_chunks + 1) * sizeof *t->desc_chunks);
        t->desc_chunks[t->n_desc_chunks++] = a;
        pthread_mutex_unlock(&t->mu);
        d->at = a;
        d->left = DESC_CHUNK;
    }
    d->left--;
    return d->at++;
}

static void push(blk_t **head, blk_t *b)
{
    blk_t *old = __atomic_load_n(head, __ATOMIC_RELAXED);
    do b->next = old;
    while (!__atomic_compare_exchange_n(head, &old, b, 1, __ATOMIC_RELEASE, __ATOMIC_RELAXED));
}

/* ---- the spill file ---- */

/* An open file in dir that disappears with the process, however it ends:
 * unnamed (O_TMPFILE), or named and removed at once where the file system
 * cannot do that. */
static int tmp_file(const char *dir)
{
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR && errno != EINVAL)) return fd;
    size_t n = strlen(dir) + 32;
    char *path = sg_malloc(n);
    snprintf(path, n, "%s/.seqgpu-kmers-XXXXXX", dir);
    fd = mkostemp(path, O_CLOEXEC);
    if (fd >= 0) unlink(path);
    free(path);
    return fd;
}

static int spill_open(table_t *t)
{
    pthread_mutex_lock(&t->mu);
    int fd = t->spill.fd;
    if (fd < 0) {
        fd = tmp_file(t->tmp_dir);
        if (fd >= 0) __atomic_store_n(&t->spill.fd, fd, __ATOMIC_RELEASE);
    }
    int e = errno;
    pthread_mutex_unlock(&t->mu);
    if (fd < 0)
        return fail(t, SG_ERR_INPUT, "cannot create a temporary file in '%s' for the k-mers beyond --max-memory: %s; "
                                     "name another folder with --tmp-dir", t->tmp_dir, strerror(e));
    return 0;
}

/* A stage of full blocks on their way to the spill file, each bound for a list. */
typedef struct {
    unsigned char buf[STAGE][BLOCK];
    blk_t *desc[STAGE];
    blk_t **dest[STAGE];
    int n;
} stage_t;

/* The staged blocks in one write, then onto their lists. */
static int stage_write(table_t *t, stage_t *s)
{
    if (!s->n) return 0;
    if (__atomic_load_n(&t->spill.fd, __ATOMIC_ACQUIRE) < 0 && spill_open(t) < 0) return SG_ERR_INPUT;
    size_t bytes = (size_t)s->n * BLOCK;
    uint64_t off = __atomic_fetch_add(&t->spill.end, bytes, __ATOMIC_RELAXED);
    for (size_t done = 0; done < bytes;) {
        ssize_t w = pwrite(t->spill.fd, (unsigned char *)s->buf + done, bytes - done, (off_t)(off + done));
        if (w <= 0)
            return fail(t, SG_ERR_SYSTEM, "cannot write the k-mers beyond --max-memory to --tmp-dir '%s': %s",
                        t->tmp_dir, w < 0 ? strerror(errno) : "nothing written");
        done += (size_t)w;
    }
    for (int i = 0; i < s->n; i++) {
        s->desc[i]->off = off + (uint64_t)i * BLOCK;
        push(s->dest[i], s->desc[i]);
    }
    s->n = 0;
    return 0;
}

/* A full block b (len bytes, items of them) onto list dest: kept in memory
 * if the pool has room for the block that replaces it, else through the
 * stage to the spill file. The block to go on filling is returned in *b. */
static int store(table_t *t, cache_t *c, descs_t *d, stage_t *s, blk_t **dest, unsigned char **b, uint32_t len,
                 uint32_t items)
{
    blk_t *x = desc_new(t, d);
    x->len = len;
    x->items = items;
    void *fresh = t->tmp_dir ? block_get(&t->pool, c, 1) : block_get(&t->pool, c, 0);
    if (fresh) {
        x->data = *b;
        push(dest, x);
        *b = fresh;
        return 0;
    }
    memcpy(s->buf[s->n], *b, len);
    x->sum = (uint32_t)crc32(0, *b, len);
    s->desc[s->n] = x;
    s->dest[s->n++] = dest;
    return s->n == STAGE ? stage_write(t, s) : 0;
}

/* The bytes of block x: its data, or read back into buf. */
static const unsigned char *block_bytes(table_t *t, const blk_t *x, unsigned char *buf)
{
    if (x->data) return x->data;
    for (size_t done = 0; done < x->len;) {
        ssize_t r = pread(t->spill.fd, buf + done, x->len - done, (off_t)(x->off + done));
        if (r <= 0) {
            fail(t, SG_ERR_SYSTEM, "cannot read back the k-mers spilled to --tmp-dir '%s': %s", t->tmp_dir,
                 r < 0 ? strerror(errno) : "the temporary file is shorter than written");
            return NULL;
        }
        done += (size_t)r;
    }
    if ((uint32_t)crc32(0, buf, x->len) != x->sum) {
        fail(t, SG_ERR_SYSTEM, "the k-mers spilled to --tmp-dir '%s' came back changed (checksum): the folder's "
                               "storage is failing, or something wrote to the run's temporary file", t->tmp_dir);
        return NULL;
    }
    __atomic_add_fetch(&t->spill.read, x->len, __ATOMIC_RELAXED);
    return buf;
}

/* items of a per-slot loop taken at once */
#define GRAIN 4096

/* ---- binning: reads into super-k-mers ---- */

static int8_t base_code[256];
static pthread_once_t code_once = PTHREAD_ONCE_INIT;

static void code_init(void)
{
    for (int c = 0; c < 256; c++) base_code[c] = (int8_t)sg_dna_code(c);
}

struct worker {
    worker_t *next, *next_idle;
    unsigned char **cur; /* each bin's block being filled ... */
    uint32_t *fill;      /* ... its bytes ... */
    uint32_t *items;     /* ... and k-mers */
    uint64_t ring[64];   /* the hashes of the minimizer window */
    unsigned char *packed; /* the run being cut, 2 bits a base (the first highest), and SLACK bytes more */
    size_t m_packed;
    uint64_t superkmers;
    cache_t cache;
    descs_t descs;
    stage_t stage;
};

/* Minimizer length: windows of about k / 2 for small k, 11 bases from k 21
 * (4^11 m-mers spread any genome's k-mers over the bins); odd, so that no
 * m-mer is its own reverse complement. */
static int minimizer_len(int k) { return k >= 21 ? 11 : (k / 2) | 1; }

/* The bin of the m-mer of hash h: its low half scaled to the bins (the
 * minimizer was chosen by the whole hash, whose high bits lead). */
static inline uint32_t bin_of(uint64_t h, uint32_t n_bins) { return (uint32_t)(((h & 0xffffffffu) * n_bins) >> 32); }

static inline int in_part(const table_t *t, uint64_t h)
{
    return t->n_parts <= 1 || sg_kmer_part(h, t->n_parts) == t->part;
}

/* One record of the n k-mers from base `from` of the packed run into bin b:
 * its bases copied a byte at a time, shifted where they do not start a byte. */
static int emit(table_t *t, worker_t *w, uint32_t b, uint64_t from, uint32_t n)
{
    const uint32_t bases = n + (uint32_t)t->k - 1, nbytes = (bases + 3) / 4;
    if (w->fill[b] + 1 + nbytes > BLOCK - SLACK) {
        int r = store(t, &w->cache, &w->descs, &w->stage, &t->bins[b], &w->cur[b], w->fill[b], w->items[b]);
        if (r < 0) return r;
        __atomic_add_fetch(&t->bin_kmers[b], w->items[b], __ATOMIC_RELAXED);
        w->fill[b] = w->items[b] = 0;
    }
    unsigned char *o = w->cur[b] + w->fill[b];
    o[0] = (unsigned char)n;
    const unsigned char *in = w->packed + from / 4;
    const int sh = 2 * (int)(from & 3);
    if (!sh) memcpy(o + 1, in, nbytes);
    else
        for (uint32_t j = 0; j < nbytes; j++) o[1 + j] = (unsigned char)(in[j] << sh | in[j + 1] >> (8 - sh));
    if (bases & 3) o[nbytes] &= (unsigned char)(0xff00 >> (2 * (bases & 3))); /* no bases of the next record */
    w->fill[b] += 1 + nbytes;
    w->items[b] += n;
    w->superkmers++;
    return 0;
}

/* The n k-mers of a run of A/C/G/T at s (n + k - 1 bases) into their bins:
 * each k-mer's minimizer is its smallest canonical m-mer by hash (the same
 * on both strands), and consecutive k-mers of one bin are one record. In a
 * part of the run, only the part's k-mers are kept. */
static int bin_run(table_t *t, worker_t *w, const unsigned char *s, uint64_t n)
{
    const int k = t->k, m = t->m, win = k - m + 1;
    const uint64_t bases = n + (uint64_t)k - 1;
    if (bases / 4 + SLACK > w->m_packed) {
        w->m_packed = 2 * (bases / 4 + SLACK);
        w->packed = sg_realloc(w->packed, w->m_packed);
    }
    /* the run packed once; its records copy from it */
    unsigned char *pk = w->packed;
    uint64_t i = 0;
    for (; i + 4 <= bases; i += 4)
        *pk++ = (unsigned char)(base_code[s[i]] << 6 | base_code[s[i + 1]] << 4 | base_code[s[i + 2]] << 2 |
                                base_code[s[i + 3]]);
    if (i < bases) {
        unsigned x = 0;
        for (uint64_t j = 0; j < 4; j++) x = x << 2 | (i + j < bases ? (unsigned)base_code[s[i + j]] : 0);
        *pk++ = (unsigned char)x;
    }
    const uint64_t mmask = (1ull << (2 * m)) - 1;
    const int parted = t->n_parts > 1;
    uint64_t f = 0, r = 0, min_h = UINT64_MAX;
    kmer_t kf = 0, kr = 0;
    const kmer_t kmask = ((kmer_t)1 << (2 * k)) - 1;
    int64_t min_at = -1;
    int at = 0; /* the ring's next slot */
    uint32_t bin = UINT32_MAX, run = 0;
    uint64_t run_start = 0;
    for (int j = 0; j < m - 1; j++) {
        uint64_t c = (uint64_t)base_code[s[j]];
        f = (f << 2 | c) & mmask;
        r = r >> 2 | (3 - c) << (2 * (m - 1));
    }
    if (parted)
        for (int j = 0; j < k - 1; j++) {
            kmer_t c = (kmer_t)base_code[s[j]];
            kf = (kf << 2 | c) & kmask;
            kr = kr >> 2 | (3 - c) << (2 * (k - 1));
        }
    const uint64_t n_mmers = n + (uint64_t)win - 1;
    for (uint64_t p = 0; p < n_mmers; p++) {
        uint64_t c = (uint64_t)base_code[s[p + m - 1]];
        f = (f << 2 | c) & mmask;
        r = r >> 2 | (3 - c) << (2 * (m - 1));
        uint64_t h = sg_mix64(f < r ? f : r);
        w->ring[at] = h;
        at = at + 1 == win ? 0 : at + 1;
        if (h <= min_h) {
            min_h = h;
            min_at = (int64_t)p;
        } else if (min_at + win <= (int64_t)p) { /* the minimum left the window */
            min_h = UINT64_MAX;
            for (int j = 0; j < win; j++)
                if (w->ring[j] <= min_h) min_h = w->ring[j];
            min_at = (int64_t)p; /* the window's last position holding it is no earlier than this */
            for (int j = 0, q = at; j < win; j++, q = q + 1 == win ? 0 : q + 1)
                if (w->ring[q] == min_h) min_at = (int64_t)p - win + 1 + j;
        }
        if (p + 1 < (uint64_t)win) continue;
        const uint64_t j = p + 1 - (uint64_t)win; /* the k-mer that ends here */
        uint32_t b = bin_of(min_h, t->n_bins);
        if (parted) {
            kmer_t kc = (kmer_t)c;
            kf = (kf << 2 | kc) & kmask;
            kr = kr >> 2 | (3 - kc) << (2 * (k - 1));
            if (!in_part(t, kmer_hash(kf < kr ? kf : kr))) b = UINT32_MAX;
        }
        if (b == bin && b != UINT32_MAX && run < RUN_MAX) {
            run++;
            continue;
        }
        if (run) {
            int e = emit(t, w, bin, run_start, run);
            if (e < 0) return e;
        }
        bin = b;
        run = b != UINT32_MAX;
        run_start = j;
    }
    return run ? emit(t, w, bin, run_start, run) : 0;
}

static worker_t *worker_get(table_t *t)
{
    pthread_mutex_lock(&t->mu);
    worker_t *w = t->idle;
    if (w) t->idle = w->next_idle;
    pthread_mutex_unlock(&t->mu);
    if (w) return w;
    w = sg_calloc(1, sizeof *w);
    w->cur = sg_malloc(t->n_bins * sizeof *w->cur);
    w->fill = sg_calloc(t->n_bins, sizeof *w->fill);
    w->items = sg_calloc(t->n_bins, sizeof *w->items);
    for (uint32_t b = 0; b < t->n_bins; b++) w->cur[b] = block_get(&t->pool, &w->cache, 0);
    pthread_mutex_lock(&t->mu);
    w->next = t->workers;
    t->workers = w;
    pthread_mutex_unlock(&t->mu);
    return w;
}

static void worker_free(worker_t *w)
{
    free(w->packed);
    free(w->cur);
    free(w->fill);
    free(w->items);
    free(w);
}

static void worker_put(table_t *t, worker_t *w)
{
    pthread_mutex_lock(&t->mu);
    w->next_idle = t->idle;
    t->idle = w;
    pthread_mutex_unlock(&t->mu);
}

static int add_chunk(table_t *t, const sg_chunk_t *c)
{
    worker_t *w = worker_get(t);
    const unsigned char *s = (const unsigned char *)c->seq;
    const size_t n = c->len + c->ov, k = (size_t)t->k;
    int r = 0;
    /* runs of A/C/G/T; a chunk owns the k-mers that start before len */
    for (size_t i = 0; i < n && i < c->len && r == 0;) {
        while (i < n && base_code[s[i]] < 0) i++;
        size_t a = i;
        while (i < n && base_code[s[i]] >= 0) i++;
        if (a >= c->len) break;
        if (i - a < k) continue;
        size_t last = i - k < c->len - 1 ? i - k : c->len - 1;
        r = bin_run(t, w, s + a, last - a + 1);
    }
    if (r == 0) r = stage_write(t, &w->stage);
    worker_put(t, w);
    return r;
}

/* The last blocks of every worker onto their bins. */
static int flush_workers(table_t *t)
{
    int r = 0;
    for (worker_t *w = t->workers; w; w = w->next) {
        for (uint32_t b = 0; b < t->n_bins; b++) {
            if (w->fill[b] && r == 0) {
                r = store(t, &w->cache, &w->descs, &w->stage, &t->bins[b], &w->cur[b], w->fill[b], w->items[b]);
                t->bin_kmers[b] += w->items[b];
            }
            block_put(&t->pool, &w->cache, w->cur[b]);
        }
        if (r == 0) r = stage_write(t, &w->stage);
        cache_flush(&t->pool, &w->cache);
        t->superkmers += w->superkmers;
    }
    while (t->workers) {
        worker_t *w = t->workers;
        t->workers = w->next;
        worker_free(w);
    }
    t->idle = NULL;
    return r;
}

/* ---- counting the bins ---- */

/* A slot of a bin's hash table: the k-mer and its count (0: empty), in one cache line. */
typedef struct {
    kmer_t key;
    uint32_t count;
} entry_t;

struct counter {
    entry_t *slot;         /* the bin's hash table: cap (2^bits) slots of the m allocated, zeroed */
    uint64_t cap, m, size;
    int bits;
    uint64_t hist[SG_HIST_BINS];
    uint64_t total;
    double ratio_k, ratio_d; /* k-mers and distinct ones counted so far: a bin's table is sized by their ratio */
    uint32_t slice, n_slices; /* the hash slice of the bin counted now */
    uint64_t slices;         /* slices counted, over all bins */
    unsigned char *part_cur[N_PART];
    uint32_t part_fill[N_PART];
    unsigned char rd[BLOCK];
    cache_t cache;
    descs_t descs;
    stage_t stage;
    int err;
};

/* A k-mer and a number (its count, or its unitig), for sorting and gathering. */
typedef struct {
    kmer_t key;
    uint32_t v;
} kv_t;

/* A pair of the store: the k-mer, then its count. */
#define PAIR (sizeof(kmer_t) + 4)

static int keep_pair(table_t *t, counter_t *ct, kmer_t x, uint64_t h, uint32_t count)
{
    const uint32_t q = (uint32_t)(bucket_hash(h) >> (64 - PART_BITS));
    if (!ct->part_cur[q]) {
        ct->part_cur[q] = block_get(&t->pool, &ct->cache, 0);
        ct->part_fill[q] = 0;
    }
    if (ct->part_fill[q] + PAIR > BLOCK) {
        uint32_t items = ct->part_fill[q] / (uint32_t)PAIR;
        int r = store(t, &ct->cache, &ct->descs, &ct->stage, &t->parts[q], &ct->part_cur[q], ct->part_fill[q], items);
        if (r < 0) return r;
        __atomic_add_fetch(&t->part_pairs[q], items, __ATOMIC_RELAXED);
        ct->part_fill[q] = 0;
    }
    unsigned char *o = ct->part_cur[q] + ct->part_fill[q];
    memcpy(o, &x, sizeof x);
    memcpy(o + sizeof x, &count, 4);
    ct->part_fill[q] += (uint32_t)PAIR;
    return 0;
}

/* The bin's table of cap slots, empty: the allocation is kept from bin to
 * bin (zeroed as it is left), and grown when a bin needs more. */
static void table_size(counter_t *ct, uint64_t cap)
{
    if (cap > ct->m) {
        free(ct->slot);
        ct->slot = sg_calloc(cap, sizeof *ct->slot);
        ct->m = cap;
    }
    ct->cap = cap;
    ct->bits = __builtin_ctzll(cap);
}

/* A bin table's hash: one multiply (Fibonacci hashing, its top bits the
 * slot), enough for a table in the cache; the store takes the k-mer hash. */
static inline uint64_t slot_hash(kmer_t x)
{
#if SG_KMER_BITS == 128
    return ((uint64_t)x ^ (uint64_t)(x >> 64) * 0xc2b2ae3d27d4eb4full) * FIB;
#else
    return x * FIB;
#endif
}

static inline uint64_t slot_of(const counter_t *ct, uint64_t sh) { return sh >> (64 - ct->bits); }

static void insert(counter_t *ct, kmer_t x, uint64_t sh)
{
    const uint64_t mask = ct->cap - 1;
    uint64_t i = slot_of(ct, sh);
    ct->total++;
    for (entry_t *e; (e = &ct->slot[i])->count; i = (i + 1) & mask)
        if (e->key == x) {
            e->count += e->count != UINT32_MAX;
            return;
        }
    ct->slot[i] = (entry_t){x, 1};
    if (++ct->size * 4 > ct->cap * 3) { /* a bin with more distinct k-mers than its estimate: twice the table */
        entry_t *old = ct->slot;
        const uint64_t cap = ct->cap;
        ct->slot = sg_calloc(2 * cap, sizeof *ct->slot);
        ct->cap = ct->m = 2 * cap;
        ct->bits++;
        for (uint64_t j = 0; j < cap; j++) {
            if (!old[j].count) continue;
            uint64_t s = slot_of(ct, slot_hash(old[j].key));
            while (ct->slot[s].count) s = (s + 1) & (ct->cap - 1);
            ct->slot[s] = old[j];
        }
        free(old);
    }
}

/* The k-mers of one block of super-k-mer records into the bin's table, a
 * batch at a time: each batch's slots are fetched before any is probed. */
#define BATCH 16
static void count_block(const table_t *t, counter_t *ct, const unsigned char *p, uint32_t len)
{
    const int k = t->k;
    const kmer_t kmask = ((kmer_t)1 << (2 * k)) - 1;
    kmer_t xs[BATCH];
    uint64_t hs[BATCH];
    int nx = 0;
    for (uint32_t at = 0; at < len;) {
        const uint32_t n = p[at++], bases = n + (uint32_t)k - 1;
        const unsigned char *b = p + at;
        at += (bases + 3) / 4;
        /* the first k - 1 bases at once: packed as a k-mer is, the first highest */
        kmer_t f = 0;
        for (int j = 0; j < (int)sizeof(kmer_t); j++) f = f << 8 | b[j];
        f >>= 8 * sizeof(kmer_t) - 2 * (size_t)(k - 1);
        kmer_t r = kmer_rc(f, k - 1) << 2;
        for (uint32_t i = (uint32_t)k - 1; i < bases; i++) {
            kmer_t c = (kmer_t)(b[i >> 2] >> (6 - 2 * (i & 3)) & 3);
            f = (f << 2 | c) & kmask;
            r = r >> 2 | (3 - c) << (2 * (k - 1));
            xs[nx] = f < r ? f : r; /* a part's records hold its k-mers only */
            hs[nx] = slot_hash(xs[nx]);
            if (ct->n_slices > 1 && (uint32_t)(hs[nx] >> 24 & 0xff) % ct->n_slices != ct->slice) continue;
            __builtin_prefetch(&ct->slot[slot_of(ct, hs[nx])], 1);
            if (++nx == BATCH) {
                for (int j = 0; j < BATCH; j++) insert(ct, xs[j], hs[j]);
                nx = 0;
            }
        }
    }
    for (int j = 0; j < nx; j++) insert(ct, xs[j], hs[j]);
}
#undef BATCH

/* The bin's k-mers of hash slice `slice` of n_slices (bits of the table's
 * hash that its slots do not take) into the table,
 * then out to the histogram and the store. A bin read from the spill file
 * is read once per slice. */
static int count_slice(table_t *t, counter_t *ct, blk_t *list, uint32_t slice, uint32_t n_slices, int last)
{
    ct->size = 0;
    ct->slice = slice;
    ct->n_slices = n_slices;
    for (blk_t *x = list; x; x = x->next) {
        const unsigned char *p = block_bytes(t, x, ct->rd);
        if (!p) return SG_ERR_SYSTEM;
        count_block(t, ct, p, x->len);
        if (last && x->data) block_put(&t->pool, &ct->cache, x->data);
    }
    for (uint64_t i = 0; i < ct->cap; i++) {
        const entry_t *e = &ct->slot[i];
        if (!e->count) continue;
        ct->hist[e->count < SG_HIST_BINS - 1 ? e->count : SG_HIST_BINS - 1]++;
        if (e->count >= t->min_keep && keep_pair(t, ct, e->key, kmer_hash(e->key), e->count) < 0) return SG_ERR_SYSTEM;
    }
    ct->ratio_d += (double)ct->size;
    memset(ct->slot, 0, ct->cap * sizeof *ct->slot);
    return 0;
}

static void count_bin(void *arg, void *state, uint64_t bin)
{
    table_t *t = arg;
    counter_t *ct = state;
    if (ct->err || __atomic_load_n(&t->failed, __ATOMIC_RELAXED)) return;
    const uint64_t kmers = t->bin_kmers[bin];
    if (!kmers) return;
    /* room for the distinct k-mers the bins so far predict (half of them
     * before any), at a load of at most 0.6; in as many slices as keep the
     * table within a thread's share of a byte limit */
    double expect = (double)kmers * (ct->ratio_d + 1) / (ct->ratio_k + 2);
    uint64_t cap = 64;
    uint32_t n_slices = 1;
    while ((double)cap * 0.6 < expect) cap *= 2;
    while (t->slice_bytes && cap > 64 && cap * sizeof(entry_t) > t->slice_bytes && n_slices < MAX_SLICES) {
        cap /= 2;
        n_slices *= 2;
    }
    table_size(ct, cap);
    for (uint32_t s = 0; s < n_slices && !ct->err; s++)
        ct->err = count_slice(t, ct, t->bins[bin], s, n_slices, s + 1 == n_slices);
    t->bins[bin] = NULL;
    ct->ratio_k += (double)kmers;
    ct->slices += n_slices;
}

/* A counter's last blocks of pairs onto their parts. */
static int counter_flush(table_t *t, counter_t *ct)
{
    int r = ct->err;
    for (int q = 0; q < N_PART; q++) {
        if (!ct->part_cur[q]) continue;
        if (ct->part_fill[q] && r == 0) {
            uint32_t items = ct->part_fill[q] / (uint32_t)PAIR;
            r = store(t, &ct->cache, &ct->descs, &ct->stage, &t->parts[q], &ct->part_cur[q], ct->part_fill[q], items);
            t->part_pairs[q] += items;
        }
        block_put(&t->pool, &ct->cache, ct->part_cur[q]);
        ct->part_cur[q] = NULL;
        ct->part_fill[q] = 0;
    }
    if (r == 0) r = stage_write(t, &ct->stage);
    cache_flush(&t->pool, &ct->cache);
    return r;
}

/* Each counting thread's figures into the table's, at its end (under the loop's lock). */
static void counter_done(void *arg, void *state)
{
    table_t *t = arg;
    counter_t *ct = state;
    if (counter_flush(t, ct) < 0 && !t->failed) fail(t, SG_ERR_SYSTEM, "internal error: the counted k-mers were lost");
    for (int c = 0; c < SG_HIST_BINS; c++) {
        t->hist[c] += ct->hist[c];
        t->distinct += ct->hist[c];
    }
    t->total += ct->total;
    t->slices += ct->slices;
    free(ct->slot);
}

static int count_bins(table_t *t)
{
    double t0 = sg_realtime();
    int r = flush_workers(t);
    if (r < 0) return r;
    sg_parallel_for(t->n_threads, t->n_bins, 1, count_bin, t, sizeof(counter_t), counter_done);
    pool_release(&t->pool);
    t->counted = 1;
    if (t->spill.end)
        sg_info("%.1f MB of k-mers beyond --max-memory (%.1f MB for the k-mer table) went through a temporary file in "
                "'%s'", t->spill.end / 1048576.0, t->max_bytes / 1048576.0, t->tmp_dir);
    t->sec[0] = sg_realtime() - t0;
    return t->failed ? SG_ERR_SYSTEM : 0;
}

/* ---- the kept k-mers' table ---- */

/* A kept k-mer in the compaction: its successors read forward (o 0) and as
 * its reverse complement (o 1), as bits by base (nb, o 1 in the high half),
 * the link to the next k-mer of its unitig each way (slot << 1 |
 * orientation there, or NO_LINK), the unitig it is walked into, its count
 * (255: in big), and which of its two ends a walk has started from. */
typedef struct {
    uint32_t link[2];
    uint32_t uid;
    uint8_t nb, count, started;
} vert_t;

typedef struct {
    table_t *t;
    uint32_t min;
    uint64_t *part_n;    /* kept pairs of each part, then where each part's slots start */
    uint64_t hist[SG_HIST_BINS];
} build_t;

/* A thread's gathering of a part's pairs: the spill file's blocks are read
 * into rd; kv holds what build_part gathers. */
typedef struct {
    kv_t *kv;
    uint64_t m;
    uint32_t *fill;
    uint64_t m_fill;
    unsigned char rd[BLOCK];
    cache_t cache;
    uint64_t hist[SG_HIST_BINS];
    big_t *big;
    uint64_t n_big, m_big;
} builder_t;

/* The pairs of part q seen at least min times, into out (NULL: only
 * counted); with take, the part's blocks are given back as they are read
 * and its list emptied. Returns how many, or -1 when the spill file failed
 * (the table's message set). */
static int64_t gather_part(table_t *t, builder_t *w, uint64_t q, uint32_t min, kv_t *out, int take)
{
    int64_t n = 0;
    for (blk_t *x = t->parts[q]; x; x = x->next) {
        const unsigned char *p = block_bytes(t, x, w->rd);
        if (!p) return -1;
        for (uint32_t i = 0; i < x->items; i++) {
            uint32_t c;
            memcpy(&c, p + i * PAIR + sizeof(kmer_t), 4);
            if (c < min) continue;
            if (out) {
                memcpy(&out[n].key, p + i * PAIR, sizeof out[n].key);
                out[n].v = c;
            }
            n++;
        }
        if (take && x->data) block_put(&t->pool, &w->cache, x->data);
    }
    if (take) t->parts[q] = NULL;
    return n;
}

static void count_part(void *arg, void *state, uint64_t q)
{
    build_t *b = arg;
    int64_t n = gather_part(b->t, state, q, b->min, NULL, 0);
    b->part_n[q] = n > 0 ? (uint64_t)n : 0;
}

/* Part q's pairs seen at least min times written to the table by bucket
 * (a counting sort), from the slot count_part's figures give it on. */
static void build_part(void *arg, void *state, uint64_t q)
{
    build_t *b = arg;
    builder_t *w = state;
    table_t *t = b->t;
    kept_t *kt = &t->kept;
    const uint64_t base = b->part_n[q], n = b->part_n[q + 1] - base;
    if (n + 1 > w->m) {
        w->m = n + 1;
        free(w->kv);
        w->kv = sg_malloc(w->m * sizeof *w->kv);
    }
    if (gather_part(t, w, q, b->min, w->kv, 1) != (int64_t)n) return;
    /* the part's buckets: the next bits of the bucket hash */
    const int sub = kt->bits - PART_BITS;
    const uint64_t nb = 1ull << sub, first = q << sub;
    if (nb + 1 > w->m_fill) {
        w->m_fill = nb + 1;
        free(w->fill);
        w->fill = sg_malloc(w->m_fill * sizeof *w->fill);
    }
    memset(w->fill, 0, (nb + 1) * sizeof *w->fill);
    const uint64_t mask = nb - 1;
    for (uint64_t i = 0; i < n; i++) w->fill[(bucket_hash(kmer_hash(w->kv[i].key)) >> (64 - kt->bits)) & mask]++;
    uint32_t at = (uint32_t)base;
    for (uint64_t j = 0; j < nb; j++) {
        uint32_t c = w->fill[j];
        kt->off[first + j] = at;
        w->fill[j] = at;
        at += c;
    }
    for (uint64_t i = 0; i < n; i++) {
        uint64_t j = (bucket_hash(kmer_hash(w->kv[i].key)) >> (64 - kt->bits)) & mask;
        uint64_t s = w->fill[j]++;
        kt->key[s] = w->kv[i].key;
        const uint32_t c = w->kv[i].v;
        kt->count[s] = c < 255 ? (uint8_t)c : 255;
        w->hist[c < SG_HIST_BINS - 1 ? c : SG_HIST_BINS - 1]++;
        if (c >= 255) {
            if (w->n_big == w->m_big) w->big = sg_realloc(w->big, (w->m_big = 2 * w->m_big + 16) * sizeof *w->big);
            w->big[w->n_big++] = (big_t){s, c};
        }
    }
}

static void builder_done(void *arg, void *state)
{
    build_t *b = arg;
    builder_t *w = state;
    kept_t *kt = &b->t->kept;
    for (int c = 0; c < SG_HIST_BINS; c++) b->hist[c] += w->hist[c];
    if (w->n_big) {
        kt->big = sg_realloc(kt->big, (kt->n_big + w->n_big) * sizeof *kt->big);
        memcpy(kt->big + kt->n_big, w->big, w->n_big * sizeof *w->big);
        kt->n_big += w->n_big;
    }
    cache_flush(&b->t->pool, &w->cache);
    free(w->kv);
    free(w->fill);
    free(w->big);
}

static int cmp_big(const void *a, const void *b)
{
    uint64_t x = ((const big_t *)a)->slot, y = ((const big_t *)b)->slot;
    return (x > y) - (x < y);
}

/* The count of the kept k-mer in slot s. */
static inline uint32_t count_at(const kept_t *kt, uint64_t s)
{
    if (kt->count[s] < 255) return kt->count[s];
    uint64_t lo = 0, hi = kt->n_big;
    while (lo < hi) {
        uint64_t mid = (lo + hi) / 2;
        if (kt->big[mid].slot < s) lo = mid + 1;
        else hi = mid;
    }
    return kt->big[lo].count;
}

/* Slot of canonical k-mer x (of hash h), or UINT64_MAX. */
static inline uint64_t kept_find(const kept_t *kt, kmer_t x, uint64_t h)
{
    const uint64_t b = bucket_hash(h) >> (64 - kt->bits);
    for (uint32_t i = kt->off[b], e = kt->off[b + 1]; i < e; i++)
        if (kt->key[i] == x) return i;
    return UINT64_MAX;
}

static void kept_free(kept_t *kt)
{
    if (kt->key) {
        big_free(kt->key, (kt->n + 1) * sizeof *kt->key);
        big_free(kt->count, kt->n + 1);
        big_free(kt->off, ((1ull << kt->bits) + 1) * sizeof *kt->off);
    }
    free(kt->big);
    memset(kt, 0, sizeof *kt);
}

/* add_counts' last blocks onto their parts. */
static int loader_flush(table_t *t)
{
    if (!t->loader) return 0;
    int r = counter_flush(t, t->loader);
    free(t->loader);
    t->loader = NULL;
    return r;
}

static int filter(table_t *t, uint32_t min)
{
    double t0 = sg_realtime();
    int r = loader_flush(t);
    if (r < 0) return r;
    if (min < t->min_keep || t->kept.key)
        return fail(t, SG_ERR_SYSTEM, "internal error: a threshold of %u for a table that keeps %u%s", min, t->min_keep,
                    t->kept.key ? " and was filtered already" : "");
    build_t b = {.t = t, .min = min};
    b.part_n = sg_calloc(N_PART + 1, sizeof *b.part_n);
    sg_parallel_for(t->n_threads, N_PART, 1, count_part, &b, sizeof(builder_t), builder_done);
    uint64_t n = 0;
    for (int q = 0; q <= N_PART; q++) {
        uint64_t c = q < N_PART ? b.part_n[q] : 0;
        b.part_n[q] = n;
        n += c;
    }
    if (t->failed) {
        free(b.part_n);
        return SG_ERR_SYSTEM;
    }
    if (n > MAX_KEPT) {
        free(b.part_n);
        return fail(t, SG_ERR_INPUT, "%llu k-mers are kept, more than the %u a graph can take: raise the threshold "
                                     "(-c, --min-copies)", (unsigned long long)n, MAX_KEPT);
    }
    kept_t *kt = &t->kept;
    kept_free(kt);
    kt->n = n;
    /* buckets of one to two k-mers on average, and at least one per part */
    kt->bits = PART_BITS;
    while ((1ull << (kt->bits + 1)) <= n) kt->bits++;
    /* the kept k-mers' table, the compaction's array over it and the unitigs'
     * sequences (twice: as walked, and in their canonical form) must fit a
     * byte limit */
    const uint64_t graph = (n + 1) * (sizeof(kmer_t) + 1 + sizeof(vert_t) + 2) + ((1ull << kt->bits) + 1) * 4;
    if (t->max_bytes && graph > t->max_bytes) {
        free(b.part_n);
        return fail(t, SG_ERR_INPUT, "the %llu k-mers kept (seen >= %u times) take %llu MB for their graph, more than "
                                     "the %llu MB --max-memory leaves the k-mer table: raise --max-memory by %llu MB "
                                     "or more, or the threshold (-c, --min-copies)",
                    (unsigned long long)n, min, (unsigned long long)(graph >> 20),
                    (unsigned long long)(t->max_bytes >> 20), (unsigned long long)((graph - t->max_bytes) >> 20) + 1);
    }
    kt->key = big_alloc((n + 1) * sizeof *kt->key);
    kt->count = big_alloc(n + 1);
    kt->off = big_alloc(((1ull << kt->bits) + 1) * sizeof *kt->off);
    sg_parallel_for(t->n_threads, N_PART, 1, build_part, &b, sizeof(builder_t), builder_done);
    kt->off[1ull << kt->bits] = (uint32_t)n;
    if (kt->n_big) qsort(kt->big, kt->n_big, sizeof *kt->big, cmp_big);
    memcpy(t->hist, b.hist, sizeof t->hist);
    t->distinct = n;
    free(b.part_n);
    pool_release(&t->pool);
    t->sec[1] = sg_realtime() - t0;
    return t->failed ? SG_ERR_SYSTEM : 0;
}

/* ---- compaction into unitigs ---- */

typedef struct {
    const kept_t *kt;
    int k;
    vert_t *v;
} dbg_t;

/* The oriented k-mer in slot s read as orientation o. */
static inline kmer_t oriented(const dbg_t *d, uint64_t s, int o)
{
    return o ? kmer_rc(d->kt->key[s], d->k) : d->kt->key[s];
}

/* Slot of an oriented k-mer, and whether it reads as the reverse complement
 * of the canonical k-mer stored there. */
static inline uint64_t find(const dbg_t *d, kmer_t s, int *rev)
{
    kmer_t r = kmer_rc(s, d->k);
    *rev = r < s;
    kmer_t x = *rev ? r : s;
    return kept_find(d->kt, x, kmer_hash(x));
}

static inline int succ_bits(const vert_t *v, int o) { return (v->nb >> (4 * o)) & 15; }

/* The bits set in a nibble (a table in a constant: no call where the CPU
 * has no popcount instruction the build may assume). */
static inline int pop4(int x) { return (int)(0x4332322132212110ull >> (4 * x) & 15); }

/* The successors of the slots of group g both ways: eight lookups each,
 * in the table's random places far larger than the caches, so the whole
 * group's buckets are fetched, then their keys, before any is probed. */
#define GROUP 8
static void nb_group(void *arg, void *state, uint64_t g)
{
    (void)state;
    dbg_t *d = arg;
    const kept_t *kt = d->kt;
    const uint64_t first = g * GROUP, n = kt->n - first < GROUP ? kt->n - first : GROUP;
    kmer_t y[GROUP][8], x[GROUP][8];
    uint64_t hb[GROUP][8];
    for (uint64_t a = 0; a < n; a++) {
        const kmer_t way[2] = {kt->key[first + a], kmer_rc(kt->key[first + a], d->k)};
        for (int j = 0; j < 8; j++) {
            y[a][j] = kmer_next(way[j >> 2], j & 3, d->k);
            x[a][j] = kmer_canon(y[a][j], d->k);
            hb[a][j] = bucket_hash(kmer_hash(x[a][j])) >> (64 - kt->bits);
            __builtin_prefetch(&kt->off[hb[a][j]]);
        }
    }
    for (uint64_t a = 0; a < n; a++)
        for (int j = 0; j < 8; j++) __builtin_prefetch(&kt->key[kt->off[hb[a][j]]]);
    for (uint64_t a = 0; a < n; a++) {
        uint8_t bits = 0;
        uint32_t link[2] = {NO_LINK, NO_LINK};
        for (int j = 0; j < 8; j++)
            for (uint32_t i = kt->off[hb[a][j]], e = kt->off[hb[a][j] + 1]; i < e; i++)
                if (kt->key[i] == x[a][j]) {
                    bits |= (uint8_t)(1 << j);
                    link[j >> 2] = i << 1 | (y[a][j] != x[a][j]);
                    break;
                }
        vert_t *v = &d->v[first + a];
        v->nb = bits;
        for (int o = 0; o < 2; o++) v->link[o] = pop4((bits >> (4 * o)) & 15) == 1 ? link[o] : NO_LINK;
        v->uid = NO_UNITIG;
        v->count = kt->count[first + a];
        v->started = 0;
    }
}

/* A link kept only where it joins two k-mers of one unitig: the one
 * successor has this k-mer as its one predecessor, and is not this k-mer
 * (a k-mer next to its own reverse complement, a hairpin, ends its unitig
 * whichever way it is reached, so that unitigs do not depend on where a
 * walk starts). */
static void prune_group(void *arg, void *state, uint64_t g)
{
    (void)state;
    dbg_t *d = arg;
    const uint64_t first = g * GROUP, n = d->kt->n - first < GROUP ? d->kt->n - first : GROUP;
    for (uint64_t a = 0; a < n; a++)
        for (int o = 0; o < 2; o++)
            if (d->v[first + a].link[o] != NO_LINK) __builtin_prefetch(&d->v[d->v[first + a].link[o] >> 1]);
    for (uint64_t a = 0; a < n; a++) {
        const uint64_t s = first + a;
        vert_t *v = &d->v[s];
        for (int o = 0; o < 2; o++) {
            uint32_t l = v->link[o];
            if (l == NO_LINK) continue;
            uint64_t u = l >> 1;
            /* the predecessors of u as reached (orientation r) are the successors of u read the other way */
            int r = l & 1;
            if (u == s || pop4(succ_bits(&d->v[u], 1 - r)) != 1) v->link[o] = NO_LINK;
        }
    }
}

/* A unitig as a walk found it, and how its canonical form differs: reverse
 * complemented (flip), then rotated by rot k-mers (cycles only). */
typedef struct {
    kmer_t first, last; /* as read along the walk */
    kmer_t min;         /* smallest canonical k-mer ... */
    uint64_t min_pos;   /* ... its place along the walk */
    uint64_t n_k, rot;
    uint64_t start;     /* slot << 1 | orientation of the first k-mer */
    uint64_t off;       /* its sequence in its walker's buffer ... */
    int buf;            /* ... of this number */
    const char *seq;
    double sum;
    int min_rev, cycle, flip;
} walk_t;

/* A walking thread's unitigs and their sequences. */
typedef struct {
    walk_t *w;
    uint64_t n, m;
    char *seq;
    uint64_t len, cap;
} walker_t;

typedef struct {
    dbg_t *d;
    walk_t *w;
    uint64_t n, m;
    char **bufs;
    int n_bufs;
} walks_t;

/* Walk a unitig from its first k-mer (slot << 1 | orientation, start), until
 * no link goes on or the walk is back at its start (a cycle): its sequence
 * onto the walker's buffer, its first and last k-mers (a cycle's smallest
 * canonical one too) and its count sum into w; each k-mer takes the walk's
 * start, unless a walk from a lower start (the path's other end, walked at
 * the same time) has been there: then this one gives up, the other keeps
 * the path. Returns the end reached (slot << 1 | orientation), or UINT64_MAX
 * when it gave up. */
static uint64_t walk(const dbg_t *d, walker_t *wk, walk_t *w, uint64_t start, int cycle)
{
    const int k = d->k;
    vert_t *v = d->v;
    *w = (walk_t){.start = start, .off = wk->len, .cycle = cycle};
    uint64_t cur = start;
    kmer_t x = oriented(d, cur >> 1, (int)(cur & 1));
    w->first = x;
    for (uint64_t i = 0;; i++) {
        if (wk->len + (uint64_t)k + 1 > wk->cap) wk->seq = sg_realloc(wk->seq, wk->cap = 2 * wk->cap + (1 << 16));
        if (i == 0)
            for (int j = 0; j < k; j++) wk->seq[wk->len++] = sg_dna_letter((int)(x >> (2 * (k - 1 - j))));
        else
            wk->seq[wk->len++] = sg_dna_letter((int)x);
        vert_t *c = &v[cur >> 1];
        uint32_t old = __atomic_load_n(&c->uid, __ATOMIC_RELAXED);
        do
            if (old < (uint32_t)start) return UINT64_MAX;
        while (!__atomic_compare_exchange_n(&c->uid, &old, (uint32_t)start, 1, __ATOMIC_RELAXED, __ATOMIC_RELAXED));
        w->sum += c->count < 255 ? c->count : count_at(d->kt, cur >> 1);
        if (cycle) {
            kmer_t canon = cur & 1 ? kmer_rc(x, k) : x;
            if (i == 0 || canon < w->min) {
                w->min = canon;
                w->min_pos = i;
                w->min_rev = (int)(cur & 1);
            }
        }
        w->last = x;
        w->n_k = i + 1;
        uint32_t l = c->link[cur & 1];
        if (l == NO_LINK || l == start) return cur;
        __builtin_prefetch(&v[l >> 1], 1);
        x = kmer_next(x, __builtin_ctz((unsigned)succ_bits(c, (int)(cur & 1))), k);
        cur = l;
    }
}

/* Slot s starts a unitig read as orientation o when nothing links into it
 * that way. A walk claims its start; at the far end it claims the other
 * start too, and then the path is its alone; if the walk from the other end
 * had already claimed it, both walked, and the one from the lower start
 * keeps the unitig. */
static void path_slot(void *arg, void *state, uint64_t s)
{
    walks_t *ws = arg;
    walker_t *wk = state;
    vert_t *v = ws->d->v;
    for (int o = 0; o < 2; o++) {
        if (v[s].link[1 - o] != NO_LINK) continue;
        if (__atomic_fetch_or(&v[s].started, (uint8_t)(1 << o), __ATOMIC_RELAXED) & (1 << o)) continue;
        if (wk->n == wk->m) wk->w = sg_realloc(wk->w, (wk->m = 2 * wk->m + 64) * sizeof *wk->w);
        const uint64_t start = s << 1 | (uint64_t)o, len0 = wk->len;
        uint64_t end = walk(ws->d, wk, &wk->w[wk->n], start, 0);
        if (end == UINT64_MAX) { /* the other end's walk keeps it */
            wk->len = len0;
            continue;
        }
        const uint64_t other = (end >> 1) << 1 | (1 - (end & 1)); /* the far end, read back */
        int alone = !(__atomic_fetch_or(&v[other >> 1].started, (uint8_t)(1 << (other & 1)), __ATOMIC_RELAXED) &
                      (1 << (other & 1)));
        if (alone || start < other) wk->n++;
        else wk->len = len0;
    }
}

static void gather_walks(void *arg, void *state)
{
    walks_t *ws = arg;
    walker_t *wk = state;
    if (ws->n + wk->n > ws->m) ws->w = sg_realloc(ws->w, (ws->m = 2 * (ws->n + wk->n) + 64) * sizeof *ws->w);
    for (uint64_t i = 0; i < wk->n; i++) wk->w[i].buf = ws->n_bufs;
    if (wk->n) memcpy(ws->w + ws->n, wk->w, wk->n * sizeof *wk->w);
    ws->n += wk->n;
    ws->bufs = sg_realloc(ws->bufs, (ws->n_bufs + 1) * sizeof *ws->bufs);
    ws->bufs[ws->n_bufs++] = wk->seq;
    free(wk->w);
}

/* LSD radix sort of a[0..n) by key (its low bits), 11 bits a pass,
 * through tmp; passes in which every key has the same digit are skipped.
 * Returns a or tmp, whichever holds the sorted items. */
#define DIGIT 11
static kv_t *sort_kv(kv_t *a, kv_t *tmp, uint64_t n, int bits)
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
        kv_t *x = a;
        a = tmp;
        tmp = x;
    }
    free(cnt);
    return a;
}
#undef DIGIT

/* The k-mer spelt by k bases of A/C/G/T. */
static inline kmer_t parse(const char *s, int k)
{
    kmer_t x = 0;
    for (int j = 0; j < k; j++) x = (x << 2) | (kmer_t)sg_dna_code(s[j]);
    return x;
}

/* The canonical form's pieces, for the sequences and the links. */
typedef struct {
    const walks_t *ws;
    const kv_t *order;
    uint64_t *seq_off, *kmers;
    double *count_sum;
    kmer_t *first, *last;
    uint32_t *new_id;
    char *out;
} canon_t;

/* Unitig i of the canonical order: its sequence read from its smaller end
 * (a cycle from its smallest canonical k-mer, forward), its figures. */
static void canon_unitig(void *arg, void *state, uint64_t i)
{
    (void)state;
    canon_t *c = arg;
    const int k = c->ws->d->k;
    const walk_t *wu = &c->ws->w[c->order[i].v];
    const uint64_t len = wu->n_k + k - 1, rot = wu->rot;
    const char *s = wu->seq;
    char *o = c->out + c->seq_off[i];
    /* a cycle's sequence repeats its first k - 1 bases at the end:
     * s[j] == s[j mod n_k], so the rotation is two copies (of the reverse
     * complement, rc(s)[x] = comp(s[len - 1 - x]), when flipped) */
    if (wu->flip) {
        for (uint64_t j = 0; j < len - rot; j++) o[j] = sg_base_complement(s[len - 1 - rot - j]);
        for (uint64_t j = 0; j < rot; j++) o[len - rot + j] = sg_base_complement(s[len - k - j]);
    } else {
        memcpy(o, s + rot, len - rot);
        memcpy(o + len - rot, s + k - 1, rot);
    }
    c->kmers[i] = wu->n_k;
    c->count_sum[i] = wu->sum;
    c->first[i] = c->order[i].key;
    c->last[i] = parse(o + len - k, k);
    c->new_id[c->order[i].v] = (uint32_t)i;
}

/* Each k-mer's unitig: the walk that kept it (found through the start it
 * took), in the canonical numbering. The start slots' links serve as that
 * map, as the walks are over. */
typedef struct {
    dbg_t *d;
    const uint32_t *new_id;
} renumber_t;

static void renumber_slot(void *arg, void *state, uint64_t s)
{
    (void)state;
    renumber_t *r = arg;
    vert_t *v = r->d->v;
    v[s].uid = r->new_id[v[v[s].uid >> 1].link[0]];
}

typedef struct {
    sg_edge_t *e;
    uint64_t n, m;
} edge_list_t;

typedef struct {
    const dbg_t *d;
    const canon_t *c;
    edge_list_t all; /* every thread's links, gathered */
} links_t;

/* Links between unitig ends: from u+ (its last k-mer) and u- (the reverse
 * complement of its first) to whichever unitig end each successor is. */
static void links_of(void *arg, void *state, uint64_t u)
{
    links_t *l = arg;
    edge_list_t *el = state;
    const dbg_t *d = l->d;
    const canon_t *c = l->c;
    const int k = d->k;
    for (int dir = 0; dir < 2; dir++) {
        kmer_t end = dir ? kmer_rc(c->first[u], k) : c->last[u];
        int end_rev;
        uint64_t end_slot = find(d, end, &end_rev);
        int bits = succ_bits(&d->v[end_slot], end_rev);
        for (int b = 0; b < 4; b++) {
            if (!(bits >> b & 1)) continue;
            kmer_t x = kmer_next(end, b, k);
            int x_rev;
            uint32_t v = d->v[find(d, x, &x_rev)].uid;
            int vdir;
            if (x == c->first[v]) vdir = 0;
            else if (x == kmer_rc(c->last[v], k)) vdir = 1;
            else continue; /* cannot happen: compaction ends unitigs at every branch */
            if (el->n == el->m) el->e = sg_realloc(el->e, (el->m = 2 * el->m + 64) * sizeof *el->e);
            el->e[el->n++] = (sg_edge_t){sg_vert((uint32_t)u, dir), sg_vert(v, vdir), (uint32_t)(k - 1)};
        }
    }
}

static void gather_links(void *arg, void *state)
{
    edge_list_t *all = &((links_t *)arg)->all, *el = state;
    if (all->n + el->n > all->m) all->e = sg_realloc(all->e, (all->m = 2 * (all->n + el->n) + 64) * sizeof *all->e);
    if (el->n) memcpy(all->e + all->n, el->e, el->n * sizeof *el->e);
    all->n += el->n;
    free(el->e);
}

static int unitigs(table_t *t, sg_graph_t *g)
{
    double t0 = sg_realtime();
    const int k = t->k;
    const kept_t *kt = &t->kept;
    dbg_t d = {.kt = kt, .k = k};
    d.v = big_alloc((kt->n + 1) * sizeof *d.v);
    const uint64_t groups = (kt->n + GROUP - 1) / GROUP;
    sg_parallel_for(t->n_threads, groups, GRAIN / GROUP, nb_group, &d, 0, NULL);
    sg_parallel_for(t->n_threads, groups, GRAIN / GROUP, prune_group, &d, 0, NULL);

    /* the paths, each walked from an end, on all threads; then what no
     * path reached, in branch-free cycles: each walked from its first k-mer
     * found until it is back there */
    walks_t ws = {.d = &d};
    sg_parallel_for(t->n_threads, kt->n, GRAIN, path_slot, &ws, sizeof(walker_t), gather_walks);
    walker_t cyc = {0};
    for (uint64_t s = 0; s < kt->n; s++) {
        if (d.v[s].uid != NO_UNITIG) continue;
        if (cyc.n == cyc.m) cyc.w = sg_realloc(cyc.w, (cyc.m = 2 * cyc.m + 64) * sizeof *cyc.w);
        uint64_t end = walk(&d, &cyc, &cyc.w[cyc.n++], s << 1, 1);
        if (end == UINT64_MAX || d.v[end >> 1].link[end & 1] != (s << 1)) {
            free(cyc.w);
            free(cyc.seq);
            return fail(t, SG_ERR_SYSTEM, "internal error: k-mer %llu is in no unitig", (unsigned long long)s);
        }
    }
    gather_walks(&ws, &cyc);
    /* no more unitigs than kept k-mers, fewer than 2^31: numbers fit 32 bits */
    const uint64_t n_unitig = ws.n;
    for (uint64_t u = 0; u < n_unitig; u++) ws.w[u].seq = ws.bufs[ws.w[u].buf] + ws.w[u].off;

    /* The canonical form, so that any builder (the GPU's too) gives the same
     * graph byte for byte: a path reads from whichever end makes its first
     * k-mer the smaller, a cycle starts at its smallest canonical k-mer, read
     * forward; unitigs are numbered in the order of those first k-mers (each
     * k-mer lies in one unitig, so no two are equal). */
    kv_t *order = sg_malloc((n_unitig + 1) * sizeof *order);
    for (uint64_t u = 0; u < n_unitig; u++) {
        walk_t *wu = &ws.w[u];
        if (wu->cycle) {
            wu->flip = wu->min_rev;
            wu->rot = wu->min_rev ? wu->n_k - 1 - wu->min_pos : wu->min_pos;
            order[u].key = wu->min;
        } else {
            kmer_t r = kmer_rc(wu->last, k);
            wu->flip = r < wu->first;
            order[u].key = wu->flip ? r : wu->first;
        }
        order[u].v = (uint32_t)u;
    }
    kv_t *tmp = sg_malloc((n_unitig + 1) * sizeof *tmp), *sorted = sort_kv(order, tmp, n_unitig, 2 * k);
    free(sorted == order ? tmp : order);
    canon_t c = {.ws = &ws, .order = sorted};
    c.seq_off = sg_malloc((n_unitig + 1) * sizeof *c.seq_off);
    c.kmers = sg_malloc((n_unitig + 1) * sizeof *c.kmers);
    c.count_sum = sg_malloc((n_unitig + 1) * sizeof *c.count_sum);
    c.first = sg_malloc((n_unitig + 1) * sizeof *c.first);
    c.last = sg_malloc((n_unitig + 1) * sizeof *c.last);
    c.new_id = sg_malloc((n_unitig + 1) * sizeof *c.new_id);
    c.seq_off[0] = 0;
    for (uint64_t i = 0; i < n_unitig; i++) c.seq_off[i + 1] = c.seq_off[i] + ws.w[sorted[i].v].n_k + k - 1;
    c.out = sg_malloc(c.seq_off[n_unitig] + 1);
    sg_parallel_for(t->n_threads, n_unitig, 64, canon_unitig, &c, 0, NULL);
    /* the start slot of each walk kept names it (its links are not needed again) */
    for (uint64_t u = 0; u < n_unitig; u++) d.v[ws.w[u].start >> 1].link[0] = (uint32_t)u;
    renumber_t rn = {&d, c.new_id};
    sg_parallel_for(t->n_threads, kt->n, GRAIN, renumber_slot, &rn, 0, NULL);
    for (int i = 0; i < ws.n_bufs; i++) free(ws.bufs[i]);
    free(ws.bufs);
    free(ws.w);
    free(sorted);

    links_t l = {.d = &d, .c = &c};
    sg_parallel_for(t->n_threads, n_unitig, 64, links_of, &l, sizeof(edge_list_t), gather_links);
    memset(g, 0, sizeof *g);
    g->oriented = 1;
    g->k = k;
    g->n = (uint32_t)n_unitig;
    g->n_vert = 2 * g->n;
    g->seq = c.out;
    g->seq_off = c.seq_off;
    g->kmers = c.kmers;
    g->count_sum = c.count_sum;
    sg_graph_set_edges(g, l.all.e, l.all.n);
    free(l.all.e);
    free(c.first);
    free(c.last);
    free(c.new_id);
    big_free(d.v, (kt->n + 1) * sizeof *d.v);
    t->sec[2] = sg_realtime() - t0;
    return 0;
}

/* ---- taking the counted k-mers in order (counts files) ---- */

typedef struct {
    table_t *t;
    uint32_t min;
    kv_t **got;
    uint64_t *n_got;
} take_t;

/* Part q's pairs seen at least min times, sorted; its blocks freed. */
static void take_part(void *arg, void *state, uint64_t q)
{
    take_t *tk = arg;
    table_t *t = tk->t;
    kv_t *a = sg_malloc((t->part_pairs[q] + 1) * sizeof *a);
    int64_t n = gather_part(t, state, q, tk->min, a, 1);
    if (n < 0) n = 0;
    kv_t *tmp = sg_malloc((n + 1) * sizeof *tmp), *sorted = sort_kv(a, tmp, (uint64_t)n, 2 * t->k);
    free(sorted == a ? tmp : a);
    tk->got[q] = sorted;
    tk->n_got[q] = (uint64_t)n;
}

static void take_done(void *arg, void *state)
{
    take_t *tk = arg;
    builder_t *w = state;
    cache_flush(&tk->t->pool, &w->cache);
}

/* The parts' sorted runs merged into k-mer order (which mixes the parts),
 * through a heap of their heads. */
static void merge_runs(kv_t **got, const uint64_t *n_got, int k, sg_kmer_counts_t *out)
{
    const int words = (int)(sizeof(kmer_t) / 8);
    uint64_t n = 0;
    for (int q = 0; q < N_PART; q++) n += n_got[q];
    out->k = k;
    out->n = n;
    out->kmer = sg_malloc((n * words + 1) * sizeof *out->kmer);
    out->count = sg_malloc((n + 1) * sizeof *out->count);
    int heap[N_PART], hn = 0;
    uint64_t at[N_PART] = {0};
#define LESS(a, b) (got[a][at[a]].key < got[b][at[b]].key)
    for (int q = 0; q < N_PART; q++) {
        if (!n_got[q]) continue;
        int i = hn++;
        while (i > 0 && LESS(q, heap[(i - 1) / 2])) {
            heap[i] = heap[(i - 1) / 2];
            i = (i - 1) / 2;
        }
        heap[i] = q;
    }
    for (uint64_t i = 0; i < n; i++) {
        const int q = heap[0];
        const kv_t *p = &got[q][at[q]++];
        if (words == 2) out->kmer[2 * i] = (uint64_t)(p->key >> 32 >> 32);
        out->kmer[words * i + words - 1] = (uint64_t)p->key;
        out->count[i] = p->v;
        /* the head's run goes on from the root, or the heap's last takes its place */
        const int x = at[q] == n_got[q] ? heap[--hn] : q;
        int j = 0;
        for (int c; hn && (c = 2 * j + 1) < hn; j = c) {
            if (c + 1 < hn && LESS(heap[c + 1], heap[c])) c++;
            if (!LESS(heap[c], x)) break;
            heap[j] = heap[c];
        }
        if (hn) heap[j] = x;
    }
#undef LESS
}

/* ---- the table as an sg_kmer_table_t ---- */

static int kt_add(sg_kmer_table_t *kt, const sg_chunk_t *c)
{
    table_t *t = kt->priv;
    return __atomic_load_n(&t->failed, __ATOMIC_RELAXED) ? SG_ERR_SYSTEM : add_chunk(t, c);
}

static int kt_finish(sg_kmer_table_t *kt)
{
    table_t *t = kt->priv;
    return t->counted ? 0 : count_bins(t);
}

static uint64_t kt_distinct(const sg_kmer_table_t *kt) { return ((const table_t *)kt->priv)->distinct; }
static uint64_t kt_total(const sg_kmer_table_t *kt) { return ((const table_t *)kt->priv)->total; }

static int kt_histogram(sg_kmer_table_t *kt, uint64_t *hist, int n)
{
    const table_t *t = kt->priv;
    if (n < 2 || n > SG_HIST_BINS) {
        snprintf(kt->err, sizeof kt->err, "internal error: a histogram of %d bins (2 to %d)", n, SG_HIST_BINS);
        return SG_ERR_SYSTEM;
    }
    memcpy(hist, t->hist, (size_t)n * sizeof *hist);
    for (int c = n; c < SG_HIST_BINS; c++) hist[n - 1] += t->hist[c];
    return 0;
}

static int kt_filter(sg_kmer_table_t *kt, uint32_t min) { return filter(kt->priv, min); }
static int kt_unitigs(sg_kmer_table_t *kt, sg_graph_t *g) { return unitigs(kt->priv, g); }

static int kt_take(sg_kmer_table_t *kt, uint32_t min, sg_kmer_counts_t *out)
{
    table_t *t = kt->priv;
    if (min < t->min_keep)
        return fail(t, SG_ERR_SYSTEM, "internal error: the k-mers seen %u times taken from a table that keeps %u", min,
                    t->min_keep);
    int r = loader_flush(t);
    if (r < 0) return r;
    take_t tk = {.t = t, .min = min};
    tk.got = sg_calloc(N_PART, sizeof *tk.got);
    tk.n_got = sg_calloc(N_PART, sizeof *tk.n_got);
    sg_parallel_for(t->n_threads, N_PART, 1, take_part, &tk, sizeof(builder_t), take_done);
    pool_release(&t->pool);
    merge_runs(tk.got, tk.n_got, t->k, out);
    for (int q = 0; q < N_PART; q++) free(tk.got[q]);
    free(tk.got);
    free(tk.n_got);
    return t->failed ? SG_ERR_SYSTEM : 0;
}

static int kt_add_counts(sg_kmer_table_t *kt, const sg_kmer_counts_t *kc)
{
    table_t *t = kt->priv;
    const int words = (int)(sizeof(kmer_t) / 8);
    if (!t->loader) t->loader = sg_calloc(1, sizeof *t->loader);
    counter_t *ct = t->loader;
    int r = 0;
    for (uint64_t i = 0; i < kc->n && r == 0; i++) {
        kmer_t x = kc->kmer[words * i + words - 1];
        if (words == 2) x |= (kmer_t)kc->kmer[2 * i] << 32 << 32;
        const uint32_t c = kc->count[i];
        t->hist[c < SG_HIST_BINS - 1 ? c : SG_HIST_BINS - 1]++;
        t->distinct++;
        t->total += c;
        if (c >= t->min_keep) r = keep_pair(t, ct, x, kmer_hash(x), c);
    }
    return r;
}

static void kt_stats(const sg_kmer_table_t *kt, FILE *fp)
{
    const table_t *t = kt->priv;
    fprintf(fp, "\"bins\": %u, \"bin_slices\": %llu, \"minimizer\": %d, \"superkmers\": %llu, \"blocks_peak_bytes\": %llu, "
                "\"spilled_bytes\": %llu, \"spill_read_bytes\": %llu, \"kept_bytes\": %llu, "
                "\"seconds\": {\"bins\": %.4f, \"kept\": %.4f, \"unitigs\": %.4f}",
            t->n_bins, (unsigned long long)t->slices, t->m, (unsigned long long)t->superkmers, (unsigned long long)t->pool.peak,
            (unsigned long long)t->spill.end, (unsigned long long)t->spill.read,
            (unsigned long long)(t->kept.n * (sizeof(kmer_t) + 1) + ((1ull << t->kept.bits) + 1) * 4), t->sec[0],
            t->sec[1], t->sec[2]);
}

static void kt_free(sg_kmer_table_t *kt)
{
    table_t *t = kt->priv;
    kept_free(&t->kept);
    for (worker_t *w = t->workers; w;) {
        worker_t *next = w->next;
        worker_free(w);
        w = next;
    }
    free(t->loader);
    for (int i = 0; i < t->pool.n_slabs; i++) munmap(t->pool.slabs[i], SLAB);
    free(t->pool.slabs);
    free(t->pool.released);
    for (int i = 0; i < t->n_desc_chunks; i++) free(t->desc_chunks[i]);
    free(t->desc_chunks);
    if (t->spill.fd >= 0) close(t->spill.fd);
    free(t->bins);
    free(t->bin_kmers);
    free(t);
    free(kt);
}

/* Bins for unknown reads (standard input) */
#define BINS_UNKNOWN 1024

/* The bins for the k-mers expected: about BIN_KMERS each (their counting
 * tables then fit in the cache), at most MAX_BINS, and under a byte limit
 * no more than leave the binning threads' blocks (a block of each bin each)
 * a quarter of it; SEQGPU_KMER_BINS sets them (tests). */
static uint32_t bins_for(const sg_kmer_opts_t *o, int n_threads)
{
    const char *env = getenv("SEQGPU_KMER_BINS");
    if (env) {
        char *end;
        unsigned long v = strtoul(env, &end, 10);
        if (end != env && !*end && v >= 1 && v <= MAX_BINS) return (uint32_t)v;
        sg_warn("SEQGPU_KMER_BINS='%s' is not a number of bins (1 to %d): ignored", env, MAX_BINS);
    }
    uint64_t n = o->expect ? o->expect / BIN_KMERS + 1 : BINS_UNKNOWN;
    if (o->max_bytes && n > o->max_bytes / 4 / BLOCK / (uint64_t)n_threads)
        n = o->max_bytes / 4 / BLOCK / (uint64_t)n_threads;
    return n > MAX_BINS ? MAX_BINS : n < 1 ? 1 : (uint32_t)n;
}

/* Bytes a counting thread holds outside the pool beside its bin table: its
 * histogram and its stage of blocks. */
#define COUNTER_BYTES (SG_HIST_BINS * sizeof(uint64_t) + sizeof(stage_t))

int TABLE_CTOR(const sg_kmer_opts_t *o, sg_kmer_table_t **out)
{
    pthread_once(&code_once, code_init);
    table_t *t = sg_calloc(1, sizeof *t);
    sg_kmer_table_t *kt = sg_calloc(1, sizeof *kt);
    t->k = o->k;
    t->m = minimizer_len(o->k);
    t->n_threads = o->n_threads > 0 ? o->n_threads : 1;
    t->part = o->n_parts > 1 ? o->part : 0;
    t->n_parts = o->n_parts > 1 ? o->n_parts : 1;
    t->min_keep = o->min_keep > 1 ? o->min_keep : 1;
    t->n_bins = bins_for(o, t->n_threads);
    t->max_bytes = o->max_bytes;
    t->tmp_dir = o->max_bytes ? o->tmp_dir : NULL;
    if (t->tmp_dir) {
        /* a quarter for the counting threads' bin tables (each its share,
         * a bin in slices when it needs more), what else they hold beside
         * the pool aside, and the rest for the pool */
        t->slice_bytes = o->max_bytes / 4 / (uint64_t)t->n_threads;
        uint64_t aside = (uint64_t)t->n_threads * (COUNTER_BYTES + t->slice_bytes);
        t->pool.limit = o->max_bytes > aside + BLOCK ? o->max_bytes - aside : BLOCK;
    }
    t->spill.fd = -1;
    t->err = kt->err;
    t->errsz = sizeof kt->err;
    pthread_mutex_init(&t->mu, NULL);
    pthread_mutex_init(&t->pool.mu, NULL);
    t->bins = sg_calloc(t->n_bins, sizeof *t->bins);
    t->bin_kmers = sg_calloc(t->n_bins, sizeof *t->bin_kmers);
    kt->name = "cpu";
    kt->add = kt_add;
    kt->finish = kt_finish;
    kt->distinct = kt_distinct;
    kt->total = kt_total;
    kt->histogram = kt_histogram;
    kt->filter = kt_filter;
    kt->unitigs = kt_unitigs;
    kt->stats = kt_stats;
    kt->take = kt_take;
    kt->add_counts = kt_add_counts;
    kt->free = kt_free;
    kt->part = t->part;
    kt->n_parts = t->n_parts;
    kt->priv = t;
    *out = kt;
    return 0;
}

#if SG_KMER_BITS == 64
/* Per thread: a block per part of the counted k-mers, some at hand, a
 * block per bin of 64 bins, what it holds beside the pool, and a bin table
 * of 64 kB (the least a quarter of the limit gives each thread: 4096 slots
 * of 16 bytes). */
size_t sg_kmer_table_cpu_least(int n_threads)
{
    const size_t per_thread = (N_PART + 2 * CACHE + 64) * BLOCK + COUNTER_BYTES + (64 << 10);
    return (size_t)(n_threads > 0 ? n_threads : 1) * 4 * per_thread / 3;
}

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
