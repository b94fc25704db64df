/* The CPU backend: chunks are cut into cache-sized blocks, encoded once, and
 * scanned by the kernels the planner chose for the motif set.
 *
 * Kernel choice, measured with --stats (scan-step thread seconds) on the
 * 100 Mb bench genome (bench/gen_genome.c), 2 threads, 2-core Xeon VM:
 *   one 8-mer, both strands: sunday 0.62, vector 0.047, qgram 0.23;
 *   n random 12-mers (2n patterns), vector vs qgram: n=4 0.14 vs 0.24,
 *   n=8 0.26 vs 0.21, n=12 0.38 vs 0.17, n=16 0.43 vs 0.21.
 * Sunday's skips average under 2 bases on a 4-letter alphabet and cost a
 * branch each, so the Sunday kernel stays as the reference (--kernel sunday).
 * The vector kernel costs about 0.03 s per pattern per 100 Mb, the q-gram
 * filter about 0.2 s whatever the number of patterns, so auto switches at
 * SG_CPU_VECTOR_MAX patterns. */
#define _GNU_SOURCE
#include "find/backend.h"
#include "core/chunk.h"
#include "find/kernels.h"
#include "core/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SG_BLOCK (128 * 1024)  /* bases encoded and scanned at once: stays in L2 */

typedef struct {
    const sg_motif_set_t *ms;
    int skip_masked;
    sg_plan_t plan;
} cpu_t;

static int cpu_scan(sg_backend_t *be, const sg_chunk_t *c, size_t from, size_t to, sg_hits_t *hits)
{
    cpu_t *st = be->priv;
    const sg_plan_t *pl = &st->plan;
    size_t max_len = st->ms->max_len, total = c->len + c->ov;
    size_t block = to - from < SG_BLOCK ? to - from : SG_BLOCK, room = block + max_len + SG_ENC_PAD;
    uint8_t *enc = sg_malloc(room);
    /* a block at a time, so that a range denser with hits than the buffer keeps stops soon */
    for (size_t a = from; a < to && !sg_hits_over(hits); a += block) {
        size_t n = to - a < block ? to - a : block;
        size_t text = total - a < n + max_len ? total - a : n + max_len;
        sg_encode(st->skip_masked, c->seq + a, text, enc);
        memset(enc + text, SG_ENC_INVALID, room - text);
        uint32_t base = (uint32_t)a;
        if (pl->n_sunday) sg_scan_sunday(enc, n, st->ms->pat, pl->sunday, pl->n_sunday, base, hits);
        if (pl->n_vector) sg_scan_vector(enc, n, st->ms->pat, pl->vector, pl->n_vector, base, hits);
        if (pl->qgram) sg_qgram_scan(pl->qgram, enc, n, st->ms->pat, base, hits);
        if (pl->mm) sg_mm_scan(pl->mm, enc, c->seq + a, text, n, base, hits);
    }
    free(enc);
    return 0;
}

static void cpu_free(sg_backend_t *be)
{
    cpu_t *st = be->priv;
    sg_plan_free(&st->plan);
    free(st);
    free(be);
}

int sg_backend_cpu(const sg_backend_opts_t *o, sg_backend_t **out, char *err, size_t errsz)
{
    cpu_t *st = sg_calloc(1, sizeof *st);
    st->ms = o->motifs;
    st->skip_masked = o->skip_masked;
    int r = sg_plan_make(o->motifs, o->kernel ? o->kernel : "auto", SG_CPU_VECTOR_MAX, &st->plan, err, errsz);
    if (r < 0) {
        free(st);
        return r;
    }
    sg_backend_t *be = sg_calloc(1, sizeof *be);
    be->name = "cpu";
    be->max_par = 0;
    be->chunk_size = 4 << 20;
    be->scan = cpu_scan;
    be->free = cpu_free;
    be->priv = st;
    char plan[160];
    sg_plan_describe(&st->plan, plan, sizeof plan);
    snprintf(be->desc, sizeof be->desc, "cpu, %d threads: %s", o->n_threads, plan);
    *out = be;
    return 0;
}
