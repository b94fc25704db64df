/* The k-mer counts file (src/scc/dbg/counts_file.h) and the hash parts behind it:
 * parts halve exactly; a file read back is what was written, for both
 * k-mer widths; every truncation and every changed byte of a file is an
 * error, never a crash or a silent difference; the cpu table counts a part
 * with every count right, in memory and through its spill file. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scc/dbg/counts_file.h"
#include "core/dna.h"
#include "core/log.h"
#include "scc/backend.h"
#include "scc/dbg/counts.h"
#include "unit.h"

/* the reads every test file names */
static char *test_inputs[] = {"reads_1.fq.gz", "/data/x y/reads_2.fq"};
static uint64_t test_sizes[] = {123456789012ull, SG_COUNTS_SIZE_UNKNOWN};

/* Random sorted pairs of part `part` (from 1) of n_parts, each count >= min. */
static void random_pairs(int k, uint32_t part, uint32_t n_parts, uint32_t min, uint64_t n, sg_kmer_counts_t *kc,
                         sg_counts_header_t *h)
{
    const int words = k > 31 ? 2 : 1;
    kc->k = k;
    kc->kmer = calloc(2 * n + 2, sizeof *kc->kmer);
    kc->count = calloc(n + 1, sizeof *kc->count);
    *h = (sg_counts_header_t){.k = k, .part = part, .n_parts = n_parts, .min_count = min, .bins = SG_HIST_BINS,
                              .inputs = test_inputs, .sizes = test_sizes, .n_inputs = 2};
    h->hist = calloc(SG_HIST_BINS, sizeof *h->hist);
    unsigned __int128 x = 0, top = (unsigned __int128)1 << (2 * k);
    for (kc->n = 0; kc->n < n;) {
        x += 1 + unit_rand() % (uint64_t)(top / (4 * n * n_parts) + 1);
        if (x >= top) break;
        uint64_t hash = k > 31 ? sg_kmer128_hash(x) : sg_kmer64_hash((uint64_t)x);
        if (sg_kmer_part(hash, n_parts) != part - 1) continue;
        if (words == 2) kc->kmer[2 * kc->n] = (uint64_t)(x >> 64);
        kc->kmer[words * kc->n + words - 1] = (uint64_t)x;
        /* small counts mostly, a few beyond the histogram */
        uint32_t c = min + (uint32_t)(unit_rand() % 40);
        if (unit_rand() % 50 == 0) c = 70000 + (uint32_t)(unit_rand() % 100000);
        kc->count[kc->n++] = c;
        h->hist[c < SG_HIST_BINS - 1 ? c : SG_HIST_BINS - 1]++;
        h->kmers += c;
    }
    /* and k-mers below the stored minimum, which only the histogram has */
    for (uint32_t c = 1; c < min; c++) {
        h->hist[c] = 1000 + c;
        h->kmers += (uint64_t)c * h->hist[c];
    }
    for (int c = 0; c < SG_HIST_BINS; c++) h->distinct += h->hist[c];
    h->pairs = kc->n;
}

/* The file written: bytes in *buf, its size in *len. */
static void write_file(const sg_counts_header_t *h, const sg_kmer_counts_t *kc, int compress, char **buf, size_t *len)
{
    FILE *fp = open_memstream(buf, len);
    CHECK(sg_counts_write(fp, "mem", h, kc, compress) == 0, "write failed");
    fclose(fp);
}

/* Only the header of bytes: sg_counts_open's code. */
static int open_only(const char *buf, size_t len)
{
    char path[] = "/tmp/sg_unit_countsXXXXXX";
    int fd = mkstemp(path);
    if (fd < 0 || write(fd, buf, len) != (ssize_t)len) return -100;
    close(fd);
    sg_counts_reader_t *r;
    int ret = sg_counts_open(bgzf_open(path, "r"), "mem", SG_HIST_BINS, &r);
    unlink(path);
    if (ret == 0) sg_counts_close(r);
    return ret;
}

/* Read bytes back: 0 and kc filled, or the error. */
static int read_file(const char *buf, size_t len, sg_counts_header_t *h, sg_kmer_counts_t *out)
{
    char path[] = "/tmp/sg_unit_countsXXXXXX";
    int fd = mkstemp(path);
    if (fd < 0 || write(fd, buf, len) != (ssize_t)len) return -100;
    close(fd);
    BGZF *fp = bgzf_open(path, "r");
    unlink(path);
    sg_counts_reader_t *r;
    int ret = sg_counts_open(fp, "mem", SG_HIST_BINS, &r);
    if (ret < 0) return ret;
    const sg_counts_header_t *rh = sg_counts_header(r);
    *h = *rh;
    h->hist = NULL;
    h->inputs = NULL;
    h->sizes = NULL;
    /* the inputs' names and sizes come back as written */
    if (rh->n_inputs != 2 || strcmp(rh->inputs[0], test_inputs[0]) || strcmp(rh->inputs[1], test_inputs[1]) ||
        rh->sizes[0] != test_sizes[0] || rh->sizes[1] != test_sizes[1]) {
        sg_counts_close(r);
        return -102;
    }
    const int words = rh->k > 31 ? 2 : 1;
    out->kmer = calloc(words * rh->pairs + 2, sizeof *out->kmer);
    out->count = calloc(rh->pairs + 1, sizeof *out->count);
    out->n = 0;
    sg_kmer_counts_t block = {0};
    while ((ret = sg_counts_next(r, &block)) > 0) {
        if (out->n + block.n > rh->pairs) return -101;
        memcpy(out->kmer + words * out->n, block.kmer, words * block.n * sizeof *block.kmer);
        memcpy(out->count + out->n, block.count, block.n * sizeof *block.count);
        out->n += block.n;
    }
    sg_kmer_counts_free(&block);
    sg_counts_close(r);
    return ret;
}

static void test_parts_halve(void)
{
    for (int i = 0; i < 1000000; i++) {
        uint64_t h = unit_rand();
        uint32_t n = 1 + (uint32_t)(unit_rand() % 1000), p = sg_kmer_part(h, n), q = sg_kmer_part(h, 2 * n);
        CHECK(p < n && q / 2 == p, "hash %llx: part %u of %u, %u of %u", (unsigned long long)h, p, n, q, 2 * n);
    }
    /* near-equal parts */
    uint64_t count[7] = {0};
    for (int i = 0; i < 700000; i++) count[sg_kmer_part(sg_mix64((uint64_t)i), 7)]++;
    for (int p = 0; p < 7; p++) CHECK(count[p] > 99000 && count[p] < 101000, "part %d: %llu of 700000", p, (unsigned long long)count[p]);
}

static void test_round_trip(void)
{
    const int ks[] = {11, 21, 31, 33, 51, 63};
    for (size_t t = 0; t < sizeof ks / sizeof *ks; t++) {
        for (int compress = 0; compress < 2; compress++) {
            sg_kmer_counts_t kc, got = {0};
            sg_counts_header_t h, gh;
            random_pairs(ks[t], 3, 7, 2 - compress, 150000, &kc, &h);
            char *buf;
            size_t len;
            write_file(&h, &kc, compress, &buf, &len);
            int r = read_file(buf, len, &gh, &got);
            CHECK(r == 0, "k %d: read back: %d", ks[t], r);
            CHECK(gh.k == h.k && gh.part == 3 && gh.n_parts == 7 && gh.min_count == h.min_count && gh.kmers == h.kmers &&
                      gh.distinct == h.distinct && gh.pairs == kc.n,
                  "k %d: header differs", ks[t]);
            const int words = ks[t] > 31 ? 2 : 1;
            CHECK(got.n == kc.n && !memcmp(got.kmer, kc.kmer, words * kc.n * 8) &&
                      !memcmp(got.count, kc.count, kc.n * 4),
                  "k %d: %llu pairs read back, %llu written, or others", ks[t], (unsigned long long)got.n,
                  (unsigned long long)kc.n);
            CHECK(kc.n > SG_COUNTS_BLOCK, "k %d: one block only (%llu pairs)", ks[t], (unsigned long long)kc.n);
            free(buf);
            free(h.hist);
            sg_kmer_counts_free(&kc);
            sg_kmer_counts_free(&got);
        }
    }
}

/* Every truncation and every byte changed (three ways) of a small file is
 * an error: the header, the histogram and each block carry a checksum, and
 * what the checksums cannot see (the end) is checked too. */
static void test_damage(void)
{
    for (int k = 21; k <= 45; k += 24) {
        sg_kmer_counts_t kc, got = {0};
        sg_counts_header_t h, gh;
        random_pairs(k, 1, 2, 2, 300, &kc, &h);
        char *buf;
        size_t len;
        write_file(&h, &kc, 1, &buf, &len);
        for (size_t cut = 0; cut < len; cut++) {
            int r = read_file(buf, cut, &gh, &got);
            CHECK(r == SG_ERR_INPUT, "k %d: cut at %zu of %zu: %d", k, cut, len, r);
            sg_kmer_counts_free(&got);
        }
        char *bad = malloc(len + 1);
        for (size_t at = 0; at < len; at++) {
            for (int how = 0; how < 3; how++) {
                memcpy(bad, buf, len);
                bad[at] = how == 0 ? bad[at] ^ 1 : how == 1 ? bad[at] ^ 0x80 : (char)(bad[at] + 77);
                int r = read_file(bad, len, &gh, &got);
                CHECK(r == SG_ERR_INPUT, "k %d: byte %zu of %zu changed (%d): %d", k, at, len, how, r);
                sg_kmer_counts_free(&got);
            }
        }
        /* a byte more at the end */
        memcpy(bad, buf, len);
        bad[len] = 0;
        CHECK(read_file(bad, len + 1, &gh, &got) == SG_ERR_INPUT, "k %d: a byte after the end was taken", k);
        sg_kmer_counts_free(&got);
        free(bad);
        free(buf);
        free(h.hist);
        sg_kmer_counts_free(&kc);
    }
}

/* A file whose k-mer total disagrees with its histogram or its counts is an
 * error (the checksums are right: the file is crafted), at the open when the
 * histogram is exact, at the end when its last bin leaves room; parts whose
 * totals add up past 2^64, each valid alone, are refused as a set. */
static void test_totals(void)
{
    for (int pooled = 0; pooled < 2; pooled++) {
        sg_kmer_counts_t kc, got = {0};
        sg_counts_header_t h, gh;
        random_pairs(31, 1, 2, 2, 3000, &kc, &h);
        if (!pooled) { /* no count beyond the histogram: its total is exact */
            for (uint64_t i = 0; i < kc.n; i++)
                if (kc.count[i] >= SG_HIST_BINS - 1) {
                    h.hist[SG_HIST_BINS - 1]--;
                    h.hist[5]++;
                    h.kmers -= kc.count[i] - 5;
                    kc.count[i] = 5;
                }
        }
        CHECK(pooled == (h.hist[SG_HIST_BINS - 1] > 0), "no count beyond the histogram where one was wanted");
        const uint64_t right = h.kmers, wrong[] = {right + 1, right - 1, UINT64_MAX, right + 65536, h.distinct};
        for (size_t w = 0; w < sizeof wrong / sizeof *wrong; w++) {
            char *buf;
            size_t len;
            h.kmers = wrong[w];
            write_file(&h, &kc, 1, &buf, &len);
            int r = read_file(buf, len, &gh, &got);
            CHECK(r == SG_ERR_INPUT, "pooled %d: a total of %llu for %llu read back (%d)", pooled,
                  (unsigned long long)wrong[w], (unsigned long long)right, r);
            /* refused before any k-mer is read where the histogram alone tells */
            if (!pooled || wrong[w] == UINT64_MAX || wrong[w] == h.distinct)
                CHECK(open_only(buf, len) == SG_ERR_INPUT, "pooled %d: a total of %llu for %llu opened", pooled,
                      (unsigned long long)wrong[w], (unsigned long long)right);
            sg_kmer_counts_free(&got);
            free(buf);
        }
        h.kmers = right;
        char *buf;
        size_t len;
        write_file(&h, &kc, 1, &buf, &len);
        CHECK(read_file(buf, len, &gh, &got) == 0, "pooled %d: the right total refused", pooled);
        sg_kmer_counts_free(&got);
        free(buf);
        free(h.hist);
        sg_kmer_counts_free(&kc);
    }
    /* two parts, each 2^63 k-mers seen once (none stored): their sum wraps */
    char paths[2][32] = {"/tmp/sg_unit_countsAXXXXXX", "/tmp/sg_unit_countsBXXXXXX"};
    for (uint32_t p = 0; p < 2; p++) {
        sg_kmer_counts_t none = {.k = 63};
        sg_counts_header_t h = {.k = 63, .part = p + 1, .n_parts = 2, .min_count = 2, .bins = SG_HIST_BINS,
                                .inputs = test_inputs, .sizes = test_sizes, .n_inputs = 2};
        h.hist = calloc(SG_HIST_BINS, sizeof *h.hist);
        h.hist[1] = h.kmers = h.distinct = (uint64_t)1 << 63;
        int fd = mkstemp(paths[p]);
        FILE *fp = fdopen(fd, "w");
        CHECK(sg_counts_write(fp, paths[p], &h, &none, 0) == 0, "write failed");
        fclose(fp);
        free(h.hist);
    }
    for (int p = 0; p < 2; p++) { /* each valid alone */
        sg_counts_reader_t *r;
        sg_kmer_counts_t block = {0};
        int ret = sg_counts_open(bgzf_open(paths[p], "r"), paths[p], SG_HIST_BINS, &r);
        while (ret == 0 && (ret = sg_counts_next(r, &block)) > 0) ret = 0;
        CHECK(ret == 0, "part %d of 2^63 k-mers refused alone (%d)", p + 1, ret);
        if (r) sg_counts_close(r);
        sg_kmer_counts_free(&block);
    }
    char *set_paths[] = {paths[0], paths[1]};
    sg_counts_set_t s = {0};
    CHECK(sg_counts_open_set(set_paths, 2, 0, 0, &s) == SG_ERR_INPUT, "parts whose totals pass 2^64 taken");
    sg_counts_set_free(&s);
    unlink(paths[0]);
    unlink(paths[1]);
}

/* A chunk of one record holding seq. */
static sg_chunk_t *chunk_of(const char *seq)
{
    sg_chunk_t *c = sg_chunk_new(strlen(seq) + 1);
    memcpy(c->seq, seq, strlen(seq));
    c->len = strlen(seq);
    sg_seg_t *s = sg_chunk_add_seg(c);
    s->len = c->len;
    s->first = s->last = 1;
    return c;
}

/* The count of every canonical k-mer of seq whose part is `part` of n, by brute force, sorted. */
static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

static void test_table_parts(void)
{
    const int k = 21, len = 400000;
    char *seq = malloc(len + 1);
    /* a random sequence with repeats, so counts above 1 */
    for (int i = 0; i < len; i++) seq[i] = i > 1000 && unit_rand() % 3 == 0 ? seq[i - 997] : "ACGT"[unit_rand() % 4];
    seq[len] = 0;
    uint64_t *all = malloc(len * sizeof *all), n_all = 0;
    for (int i = 0; i + k <= len; i++) {
        uint64_t x = 0;
        for (int j = 0; j < k; j++) x = x << 2 | (uint64_t)sg_dna_code(seq[i + j]);
        all[n_all++] = sg_kmer64_canon(x, k);
    }
    qsort(all, n_all, sizeof *all, cmp_u64);
    /* without a limit, and with one that spills nearly every block to a file */
    for (int limit = 0; limit < 2; limit++) {
        sg_kmer_opts_t o = {.k = k, .n_threads = 2, .part = 1, .n_parts = 3, .max_bytes = limit ? 1 << 20 : 0,
                            .tmp_dir = "/tmp", .expect = len};
        sg_kmer_table_t *t;
        char err[128];
        CHECK(sg_kmer_table_cpu(&o, &t, err, sizeof err) == 0, "%s", err);
        sg_chunk_t *c = chunk_of(seq);
        CHECK(t->add(t, c) == 0, "add: %s", t->err);
        CHECK(t->finish(t) == 0, "finish");
        sg_chunk_free(c);
        uint32_t part = t->part, n = t->n_parts;
        CHECK(n == 3 && part == 1, "limit %d: part %u of %u", limit, part, n);
        sg_kmer_counts_t kc = {0};
        uint64_t total = t->total(t), distinct = t->distinct(t);
        CHECK(t->take(t, 1, &kc) == 0, "take");
        /* the limit sent the super-k-mers and the counted k-mers through the file, and took them back */
        char stats[1024] = "";
        FILE *fp = fmemopen(stats, sizeof stats - 1, "w");
        t->stats(t, fp);
        fclose(fp);
        const char *sp = strstr(stats, "\"spilled_bytes\": "), *rd = strstr(stats, "\"spill_read_bytes\": ");
        CHECK(sp && rd && (atoll(sp + 17) > 0) == limit && (atoll(rd + 20) > 0) == limit, "limit %d: %s", limit, stats);
        /* the brute force's k-mers of that part, with their counts */
        uint64_t want_n = 0, want_total = 0, bad = 0;
        for (uint64_t i = 0; i < n_all;) {
            uint64_t j = i;
            while (j < n_all && all[j] == all[i]) j++;
            if (sg_kmer_part(sg_kmer64_hash(all[i]), n) == part) {
                if (want_n >= kc.n || kc.kmer[want_n] != all[i] || kc.count[want_n] != j - i) bad++;
                want_n++;
                want_total += j - i;
            }
            i = j;
        }
        CHECK(!bad && want_n == kc.n && distinct == kc.n && total == want_total,
              "limit %d: %llu k-mers (%llu wrong), %llu expected; total %llu, %llu expected", limit,
              (unsigned long long)kc.n, (unsigned long long)bad, (unsigned long long)want_n,
              (unsigned long long)total, (unsigned long long)want_total);
        sg_kmer_counts_free(&kc);
        t->free(t);
    }
    free(all);
    free(seq);
}

int main(void)
{
    sg_log_init("unit_counts", 2);
    RUN(test_parts_halve);
    RUN(test_round_trip);
    RUN(test_damage);
    RUN(test_totals);
    RUN(test_table_parts);
    return UNIT_SUMMARY();
}
