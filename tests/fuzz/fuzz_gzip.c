/* libFuzzer: plain gzip on all cores (formats/pgzip.h) on any bytes, in
 * chunks of 64 and 211 bytes on two and three threads: zlib's answer each
 * time (its bytes, or an error when it gives one). And the pieces under
 * it on the same bytes: the block finder from every offset it gives, and
 * decoding with an unknown window from each candidate, which must stay
 * inside the input whatever the bits. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "formats/deflate.h"
#include "formats/pgzip.h"
#include "fuzz_util.h"

/* zlib as htslib reads gzip: members in a row, anything else after one an error */
static int ref_gunzip(const uint8_t *gz, size_t n, uint8_t **out, size_t *out_n)
{
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    inflateInit2(&zs, 15 + 16);
    size_t cap = 4 * n + 4096;
    *out = malloc(cap);
    *out_n = 0;
    zs.next_in = (Bytef *)gz;
    zs.avail_in = (uInt)n;
    int r = Z_OK;
    while (zs.avail_in || r != Z_STREAM_END) {
        if (r == Z_STREAM_END) inflateReset(&zs);
        if (cap - *out_n < 65536) {
            if (cap > (64u << 20)) break; /* a bomb: more than the harness compares */
            *out = realloc(*out, cap *= 2);
        }
        zs.next_out = *out + *out_n;
        zs.avail_out = (uInt)(cap - *out_n);
        r = inflate(&zs, Z_NO_FLUSH);
        *out_n = (size_t)(zs.next_out - *out);
        if (r != Z_OK && r != Z_STREAM_END) break;
        if (r == Z_OK && !zs.avail_in && zs.avail_out) break;
    }
    inflateEnd(&zs);
    return r == Z_STREAM_END && !zs.avail_in ? 0 : cap > (64u << 20) ? 1 : -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    int fd = fuzz_file(data, size, path, sizeof path);
    if (fd < 0) return 0;
    uint8_t *want;
    size_t want_n;
    int want_r = ref_gunzip(data, size, &want, &want_n);
    static const char *chunks[] = {"64", "211"};
    for (int c = 0; c < 2 && want_r <= 0; c++)
        for (int threads = 2; threads <= 3; threads++) {
            setenv("SEQGPU_GZIP_CHUNK", chunks[c], 1);
            sg_pgz_t *g = sg_pgz_open(path, threads);
            if (!g) continue; /* too small for chunks */
            size_t n = 0, cap = want_n + 65536;
            uint8_t *got = malloc(cap);
            ssize_t r;
            while ((r = sg_pgz_read(g, got + n, cap - n < 4096 ? cap - n : 4096)) > 0 && (n += (size_t)r) < cap) {}
            sg_pgz_close(g);
            int ok = r == 0;
            if (ok != (want_r == 0) || (ok && (n != want_n || memcmp(got, want, n))))
                fuzz_fail("chunks of %s, %d threads: %s (%zu bytes) where zlib gives %s (%zu bytes)", chunks[c], threads,
                          ok ? "success" : "an error", n, want_r ? "an error" : "success", want_n);
            free(got);
        }
    unsetenv("SEQGPU_GZIP_CHUNK");
    free(want);
    /* the pieces: candidates and what decodes from them, bounded */
    uint64_t from = 0;
    for (int k = 0; k < 8; k++) {
        uint64_t cand = sg_dfl_find(data, size, from, (uint64_t)size * 8);
        if (cand == SG_DFL_NONE) break;
        if (cand < from || cand >= (uint64_t)size * 8) fuzz_fail("a candidate %llu outside [%llu, end)", (unsigned long long)cand,
                                                           (unsigned long long)from);
        sg_dfl_t *z = sg_dfl_new(data, size, cand, 0, NULL, 0);
        for (int b = 0; b < 64 && sg_dfl_block(z) == 0; b++) {
            size_t ns;
            sg_dfl_out(z, &ns);
            if (ns > (16u << 20)) break;
            if (sg_dfl_pos(z) > (uint64_t)size * 8) fuzz_fail("the decoder read past the input's end");
        }
        if (sg_dfl_clean(z)) {
            uint8_t w[SG_DFL_WINDOW];
            if (sg_dfl_window(z, w) > SG_DFL_WINDOW) fuzz_fail("a window over 32 KiB");
        }
        sg_dfl_free(z);
        from = cand + 1;
    }
    close(fd);
    return 0;
}
