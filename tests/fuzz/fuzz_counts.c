/* libFuzzer: the k-mer counts file reader (src/scc/dbg/counts_file.h) on any bytes.
 * A file it reads to the end must hold what it declares: k-mers in
 * increasing order below 4^k, of its part, counts at least its minimum,
 * agreeing with its histogram; anything else is an error, never a crash. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "scc/dbg/counts_file.h"
#include "core/dna.h"
#include "scc/dbg/counts.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    int fd = fuzz_file(data, size, path, sizeof path);
    if (fd < 0) return 0;
    BGZF *fp = bgzf_open(path, "r");
    close(fd);
    if (!fp) return 0;
    sg_counts_reader_t *r;
    if (sg_counts_open(fp, "fuzz", SG_HIST_BINS, &r) < 0) return 0;
    const sg_counts_header_t *h = sg_counts_header(r);
    const int k = h->k, words = k > 31 ? 2 : 1;
    uint64_t *tally = calloc(SG_HIST_BINS, sizeof *tally), read = 0;
    unsigned __int128 prev = 0;
    sg_kmer_counts_t kc = {0};
    int n;
    while ((n = sg_counts_next(r, &kc)) > 0) {
        if ((uint64_t)n != kc.n || kc.n > SG_COUNTS_BLOCK) fuzz_fail("a block of %d pairs gave %llu", n, (unsigned long long)kc.n);
        for (uint64_t i = 0; i < kc.n; i++) {
            unsigned __int128 x = kc.kmer[words * i + words - 1];
            if (words == 2) x |= (unsigned __int128)kc.kmer[2 * i] << 64;
            if ((read || i) && x <= prev) fuzz_fail("k-mers out of order");
            if (x >> (2 * k)) fuzz_fail("a k-mer beyond 4^k");
            uint64_t hash = k > 31 ? sg_kmer128_hash(x) : sg_kmer64_hash((uint64_t)x);
            if (sg_kmer_part(hash, h->n_parts) != h->part - 1) fuzz_fail("a k-mer of another part");
            if (kc.count[i] < h->min_count) fuzz_fail("a count below the minimum");
            tally[kc.count[i] < SG_HIST_BINS - 1 ? kc.count[i] : SG_HIST_BINS - 1]++;
            prev = x;
        }
        read += kc.n;
    }
    if (n == 0) { /* read to the end: all of it as declared */
        if (read != h->pairs) fuzz_fail("%llu pairs read, %llu declared", (unsigned long long)read, (unsigned long long)h->pairs);
        for (int c = (int)h->min_count; c < SG_HIST_BINS; c++)
            if (tally[c] != h->hist[c]) fuzz_fail("count %d: %llu pairs, the histogram says %llu", c,
                                                  (unsigned long long)tally[c], (unsigned long long)h->hist[c]);
    }
    free(tally);
    sg_kmer_counts_free(&kc);
    sg_counts_close(r);
    return 0;
}
