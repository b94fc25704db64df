/* Inflate engines side by side on one gzip file, from the page cache: the
 * single-threaded libraries (zlib, ISA-L, libdeflate), seqgpu's own
 * marker decoder alone (deflate.h, the part no library offers), and
 * seqgpu's parallel reader (pgzip.h) at each thread count asked for. Each
 * line: the engine, wall seconds and CPU seconds (medians of REPEATS), MB
 * of output per second of each, and whether its output's CRC32 is the
 * file's.
 *
 *   inflate_bench FILE.gz [THREADS...]     (REPEATS from the environment, default 3)
 *   inflate_bench --cat FILE.gz THREADS    the parallel reader's output on stdout (tests)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <isa-l/crc.h>
#include <isa-l/igzip_lib.h>
#include <libdeflate.h>
#include <zlib.h>

#include "formats/deflate.h"
#include "formats/pgzip.h"
#include "core/log.h"

static double clock_s(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static const uint8_t *in;
static size_t in_len, out_len;
static uint32_t want_crc;
static uint8_t *out; /* room for the whole output */

/* Each engine: inflate the whole file; the output's CRC32 (0 if it failed), its length in *n. */
static uint32_t run_zlib(size_t *n)
{
    /* streamed through a buffer, as a reader does (and as the first run, which learns the length) */
    static uint8_t buf[1 << 22];
    z_stream zs;
    memset(&zs, 0, sizeof zs);
    if (inflateInit2(&zs, 15 + 32) != Z_OK) return 0;
    zs.next_in = (Bytef *)in;
    zs.avail_in = (uInt)(in_len > UINT32_MAX ? UINT32_MAX : in_len);
    size_t fed = zs.avail_in;
    uint32_t crc = 0;
    int r = Z_OK;
    *n = 0;
    while (r == Z_OK || (r == Z_STREAM_END && (zs.avail_in || fed < in_len))) {
        if (r == Z_STREAM_END) inflateReset(&zs); /* members */
        if (!zs.avail_in && fed < in_len) {
            size_t m = in_len - fed > UINT32_MAX ? UINT32_MAX : in_len - fed;
            zs.next_in = (Bytef *)in + fed;
            zs.avail_in = (uInt)m;
            fed += m;
        }
        zs.next_out = buf;
        zs.avail_out = sizeof buf;
        r = inflate(&zs, Z_NO_FLUSH);
        size_t got = sizeof buf - zs.avail_out;
        crc = crc32_gzip_refl(crc, buf, got);
        *n += got;
        if (r == Z_BUF_ERROR && !zs.avail_in && fed == in_len) break; /* truncated */
    }
    inflateEnd(&zs);
    return r == Z_STREAM_END ? crc : 0;
}

static uint32_t run_isal(size_t *n)
{
    struct inflate_state *st = malloc(sizeof *st);
    isal_inflate_init(st);
    st->crc_flag = ISAL_GZIP;
    st->next_in = (uint8_t *)in;
    st->avail_in = (uint32_t)in_len;
    uint8_t *o = out;
    int r;
    for (;;) {
        st->next_out = o;
        st->avail_out = (uint32_t)(out_len - (size_t)(o - out) > (1u << 30) ? 1u << 30 : out_len - (size_t)(o - out));
        r = isal_inflate(st);
        o = st->next_out;
        if (r != ISAL_DECOMP_OK) break;
        if (st->block_state == ISAL_BLOCK_FINISH) {
            if (!st->avail_in) break;
            uint8_t *ni = st->next_in;
            uint32_t ai = st->avail_in;
            isal_inflate_reset(st); /* the next member */
            st->crc_flag = ISAL_GZIP;
            st->next_in = ni;
            st->avail_in = ai;
        } else if (!st->avail_in) {
            break;
        }
    }
    *n = (size_t)(o - out);
    free(st);
    return r == ISAL_DECOMP_OK ? crc32_gzip_refl(0, out, *n) : 0;
}

static uint32_t run_libdeflate(size_t *n)
{
    struct libdeflate_decompressor *dz = libdeflate_alloc_decompressor();
    size_t ip = 0, op = 0;
    int ok = 1;
    while (ok && ip < in_len) { /* members */
        size_t used, got;
        ok = libdeflate_gzip_decompress_ex(dz, in + ip, in_len - ip, out + op, out_len - op, &used, &got) ==
             LIBDEFLATE_SUCCESS;
        ip += used;
        op += got;
    }
    libdeflate_free_decompressor(dz);
    *n = op;
    return ok ? crc32_gzip_refl(0, out, op) : 0;
}

/* seqgpu's marker decoder from the first block, as if its window were
 * unknown, member after member (its speed with markers, one thread). */
static uint32_t run_markers(size_t *n)
{
    long h = sg_dfl_gzip_header(in, in_len);
    if (h < 0) return 0;
    sg_dfl_t *z = sg_dfl_new(in, in_len, (uint64_t)h * 8, 0, NULL, 0);
    int r;
    for (;;) {
        while ((r = sg_dfl_block(z)) == 0) {}
        size_t next = (size_t)(sg_dfl_pos(z) / 8) + 8; /* after the trailer */
        if (r != 1 || next >= in_len || (h = sg_dfl_gzip_header(in + next, in_len - next)) < 0) break;
        sg_dfl_member(z, next + (size_t)h);
    }
    const uint16_t *s = sg_dfl_out(z, n);
    uint8_t window[SG_DFL_WINDOW] = {0};
    if (r == 1) sg_dfl_resolve(s, *n, window, out);
    sg_dfl_free(z);
    return r == 1 ? crc32_gzip_refl(0, out, *n) : 0;
}

static const char *pgz_path;
static int pgz_threads;

static uint32_t run_pgz(size_t *n)
{
    sg_pgz_t *g = sg_pgz_open(pgz_path, pgz_threads);
    if (!g) return 0;
    size_t o = 0;
    ssize_t got;
    while (o <= out_len && (got = sg_pgz_read(g, out + o, out_len + 1 - o < (1u << 22) ? out_len + 1 - o : 1u << 22)) > 0) o += (size_t)got;
    sg_pgz_close(g);
    *n = o;
    return got == 0 ? crc32_gzip_refl(0, out, o) : 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void bench(const char *name, int threads, uint32_t (*fn)(size_t *), int repeats)
{
    double t[64], c[64];
    uint32_t crc = 0;
    size_t n = 0;
    for (int i = 0; i < repeats; i++) {
        double t0 = clock_s(CLOCK_MONOTONIC), c0 = clock_s(CLOCK_PROCESS_CPUTIME_ID);
        crc = fn(&n);
        t[i] = clock_s(CLOCK_MONOTONIC) - t0;
        c[i] = clock_s(CLOCK_PROCESS_CPUTIME_ID) - c0;
    }
    qsort(t, repeats, sizeof *t, cmp_double);
    qsort(c, repeats, sizeof *c, cmp_double);
    double med = t[repeats / 2], cpu = c[repeats / 2], mb = (double)n / 1e6;
    printf("| %s | %d | %.3f | %.0f | %.3f | %.0f | %s |\n", name, threads, med, mb / med, cpu, mb / cpu,
           crc == want_crc && n == out_len ? "ok" : "WRONG");
    fflush(stdout);
}

int main(int argc, char **argv)
{
    sg_log_init("inflate_bench", 0);
    int cat = argc == 4 && !strcmp(argv[1], "--cat");
    if (cat) argv++, argc--;
    if (argc < 2) {
        fprintf(stderr, "usage: inflate_bench FILE.gz [THREADS...]\n       inflate_bench --cat FILE.gz THREADS\n");
        return 1;
    }
    pgz_path = argv[1];
    if (cat) {
        sg_pgz_t *g = sg_pgz_open(pgz_path, atoi(argv[2]));
        if (!g) {
            fprintf(stderr, "inflate_bench: not read in parallel (too small, or one thread)\n");
            return 1;
        }
        static char buf[1 << 20];
        ssize_t got;
        while ((got = sg_pgz_read(g, buf, sizeof buf)) > 0) fwrite(buf, 1, (size_t)got, stdout);
        if (got < 0) fprintf(stderr, "inflate_bench: %s\n", sg_pgz_error(g));
        sg_pgz_close(g);
        return got < 0 ? 1 : 0;
    }
    int fd = open(argv[1], O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) < 0) {
        perror(argv[1]);
        return 1;
    }
    in_len = (size_t)st.st_size;
    in = mmap(NULL, in_len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    close(fd);
    /* the output's length and CRC32 from zlib first; the engines that fill one buffer get one of that size */
    size_t n;
    want_crc = run_zlib(&n);
    out_len = n;
    out = malloc(out_len + 1);
    memset(out, 0, n); /* touched once, outside the timings */
    int repeats = getenv("REPEATS") ? atoi(getenv("REPEATS")) : 3;
    if (repeats < 1 || repeats > 64) repeats = 3;
    printf("| engine | threads | seconds | MB/s out | CPU seconds | MB per CPU second | output |\n"
           "|---|---|---|---|---|---|---|\n");
    bench("zlib", 1, run_zlib, repeats);
    bench("ISA-L", 1, run_isal, repeats);
    bench("libdeflate", 1, run_libdeflate, repeats);
    bench("seqgpu markers (unknown window)", 1, run_markers, repeats);
    for (int i = 2; i < argc; i++) {
        pgz_threads = atoi(argv[i]);
        char name[64];
        snprintf(name, sizeof name, "seqgpu parallel gzip");
        bench(name, pgz_threads, run_pgz, repeats);
    }
    return 0;
}
