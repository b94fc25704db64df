/* The CPU backend: chunks are cut into cache-sized blocks, encoded once, and
 * scanned by the kernels the planner chose for the motif set.
 *
 * Kernel choice, measured with --stats on 100 MB of random DNA (half
 * lowercase), 2 threads, scan-step thread seconds:
 *   one 8-mer, both strands: sunday 0.80, vector 0.056, qgram 0.24;
 *   n random 12-mers (2n patterns), vector vs qgram: n=4 0.16 vs 0.27,
 *   n=8 0.23 vs 0.27, n=12 0.34 vs 0.18, n=16 0.46 vs 0.17.
 * Sunday's skips average under 2 bases on a 4-letter alphabet and cost a
 * branch each, so the seed's kernel stays as the reference (--kernel sunday).
 * The vector kernel costs about 0.028 s per pattern per 100 MB; the q-gram
 * filter about 0.2 s whatever the number of patterns, so auto switches at
 * SG_VECTOR_MAX patterns. */
#define _GNU_SOURCE
#include "backend.h"
#include "kernels.h"
#include "log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SG_VECTOR_MAX 16       /* patterns above which auto prefers the q-gram filter */
#define SG_BLOCK (128 * 1024)  /* bases encoded and scanned at once: stays in L2 */

typedef struct {
    const sg_motif_set_t *ms;
    int skip_masked;
    int *sunday, n_sunday;
    int *vector, n_vector;
    sg_qgram_t *qgram;
} cpu_t;

/* Cost per text base, in units of one q-gram pass, of a q-gram pass with q
 * plus the vector kernel for the patterns it cannot index (0.14 each, from
 * the timings above); each candidate costs about 10 bases of scanning. */
static double qgram_cost(const sg_motif_set_t *ms, int q, int *n_left)
{
    double expand = 0;
    int left = 0;
    for (int i = 0; i < ms->n_pat; i++) {
        uint64_t x = sg_qgram_expansion(&ms->pat[i], q, NULL);
        if (x >= 1 && x <= SG_QGRAM_MAX_EXPAND) expand += x;
        else left++;
    }
    *n_left = left;
    double table_miss = q >= 11 ? 0.5 * (q - 10) : 0; /* the bit table outgrows L2 */
    return 1.0 + table_miss + 10.0 * expand / (double)(1ull << (2 * q)) + 0.14 * left;
}

static void plan(cpu_t *st, const char *kernel, int *q_out)
{
    const sg_motif_set_t *ms = st->ms;
    int n = ms->n_pat;
    st->sunday = sg_malloc((n + 1) * sizeof(int));
    st->vector = sg_malloc((n + 1) * sizeof(int));
    *q_out = 0;
    if (!strcmp(kernel, "sunday")) {
        for (int i = 0; i < n; i++) st->sunday[st->n_sunday++] = i;
        return;
    }
    if (!strcmp(kernel, "vector") || (!strcmp(kernel, "auto") && n <= SG_VECTOR_MAX)) {
        for (int i = 0; i < n; i++) st->vector[st->n_vector++] = i;
        return;
    }
    int best_q = 0, left;
    double best = 0.14 * n; /* everything on the vector kernel */
    for (int q = 4; q <= 12; q++) {
        double c = qgram_cost(ms, q, &left);
        if (left < n && (!best_q || c < best)) {
            best = c;
            best_q = q;
        }
    }
    int *ids = sg_malloc((n + 1) * sizeof(int)), n_ids = 0;
    for (int i = 0; i < n; i++) {
        uint64_t x = best_q ? sg_qgram_expansion(&ms->pat[i], best_q, NULL) : 0;
        if (x >= 1 && x <= SG_QGRAM_MAX_EXPAND) ids[n_ids++] = i;
        else st->vector[st->n_vector++] = i;
    }
    if (n_ids) {
        st->qgram = sg_qgram_build(ms->pat, ids, n_ids, best_q);
        *q_out = best_q;
    }
    free(ids);
}

static int cpu_scan(sg_backend_t *be, const sg_chunk_t *c, sg_hits_t *hits)
{
    cpu_t *st = be->priv;
    size_t max_len = st->ms->max_len, total = c->len + c->ov;
    size_t room = SG_BLOCK + max_len + SG_ENC_PAD;
    uint8_t *enc = sg_malloc(room);
    for (size_t a = 0; a < c->len; a += SG_BLOCK) {
        size_t n = c->len - a < SG_BLOCK ? c->len - a : SG_BLOCK;
        size_t text = total - a < n + max_len ? total - a : n + max_len;
        sg_encode(st->skip_masked, c->seq + a, text, enc);
        memset(enc + text, SG_ENC_INVALID, room - text);
        uint32_t base = (uint32_t)a;
        if (st->n_sunday) sg_scan_sunday(enc, n, st->ms->pat, st->sunday, st->n_sunday, base, hits);
        if (st->n_vector) sg_scan_vector(enc, n, st->ms->pat, st->vector, st->n_vector, base, hits);
        if (st->qgram) sg_qgram_scan(st->qgram, enc, n, st->ms->pat, base, hits);
    }
    free(enc);
    return 0;
}

static void cpu_free(sg_backend_t *be)
{
    cpu_t *st = be->priv;
    free(st->sunday);
    free(st->vector);
    sg_qgram_free(st->qgram);
    free(st);
    free(be);
}

int sg_backend_cpu(const sg_backend_opts_t *o, sg_backend_t **out, char *err, size_t errsz)
{
    const char *kernel = o->kernel ? o->kernel : "auto";
    if (strcmp(kernel, "auto") && strcmp(kernel, "sunday") && strcmp(kernel, "vector") && strcmp(kernel, "qgram")) {
        snprintf(err, errsz, "unknown kernel '%s' for the cpu backend (auto, sunday, vector, qgram)", kernel);
        return SG_ERR_INPUT;
    }
    cpu_t *st = sg_calloc(1, sizeof *st);
    st->ms = o->motifs;
    st->skip_masked = o->skip_masked;
    int q;
    plan(st, kernel, &q);
    sg_backend_t *be = sg_calloc(1, sizeof *be);
    be->name = "cpu";
    be->max_par = 0;
    be->chunk_size = 4 << 20;
    be->scan = cpu_scan;
    be->free = cpu_free;
    be->priv = st;
    int k = snprintf(be->desc, sizeof be->desc, "cpu, %d threads:", o->n_threads);
    if (st->n_sunday) k += snprintf(be->desc + k, sizeof be->desc - k, " sunday x%d", st->n_sunday);
    if (st->n_vector) k += snprintf(be->desc + k, sizeof be->desc - k, " vector x%d", st->n_vector);
    if (st->qgram)
        snprintf(be->desc + k, sizeof be->desc - k, " qgram(q=%d) x%d", q,
                 o->motifs->n_pat - st->n_sunday - st->n_vector);
    *out = be;
    return 0;
}
