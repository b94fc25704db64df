/* The own overlapper's run (sg_overlaps_find, src/scc/overlap/minimizer.h):
 * the read presets and the defaults, the blocks of work, and the stages in
 * turn, each a file of src/scc/overlap/ (minimap2's layout): the sketch
 * (sketch.c) and the index (index.c), on the host's threads or a device's
 * (o->index, cuda/scc/sketch.cu); the device's chaining beside the host's
 * work (chain_device.c); then each read's hits (hits.c) and chains
 * (chain.c), or the device's chains, as overlaps to the sink. The state
 * they share: minimizer_int.h. */
#define _GNU_SOURCE
#include "scc/overlap/minimizer_int.h"
#include "core/log.h"
#include "core/progress.h"

#include <stdlib.h>
#include <string.h>

/* CLR: minimap2's -x ava-pb sketch. ONT: homopolymer-compressed 17-mers in
 * windows of 8 (minimap2's ava-ont takes uncompressed 15-mers; on pbsim's
 * reads of 88 to 95% those joined unique reads to arrays and missed 15% of
 * the implied overlaps, where these found CLR's arrays and overlaps in
 * two thirds of its time: bench/overlap_presets.sh). HiFi: errors are few,
 * homopolymers need no compression, and windows of 10 halve the index and
 * the hits. The identities are the own estimate's (minimizers shared in a
 * chain's span, as minimap2's dv); pbsim's CCS reads (98%) find 97% of
 * their implied overlaps at 0.95, all at 0.9. Short reads take the de
 * Bruijn graph. */
static const sg_read_preset_t presets[] = {
    {"hifi", "overlap", 19, 10, 0, 0.9, 2000},
    {"ont", "overlap", 17, 8, 1, 0.8, 2000},
    {"clr", "overlap", SG_OVL_K, SG_OVL_W, 1, 0.8, 2000},
    {"sr", "dbg", 0, 0, 0, 0, 0},
};

const sg_read_preset_t *sg_read_preset(const char *name)
{
    for (size_t i = 0; i < sizeof presets / sizeof *presets; i++)
        if (!strcmp(presets[i].name, name)) return &presets[i];
    return NULL;
}

void sg_ovl_opts_default(sg_ovl_opts_t *o, int n_threads, uint32_t min_overlap)
{
    *o = (sg_ovl_opts_t){.k = SG_OVL_K, .w = SG_OVL_W, .hpc = 1, .n_threads = n_threads > 0 ? n_threads : 1,
                         .min_overlap = min_overlap, .max_occ = 0, .rep_partners = 16};
}

/* bases of reads per block of work */
#define BLOCK_BASES (1u << 20)

/* Blocks of about BLOCK_BASES of stored reads; with a device's chains, a
 * repeat read counts HOST_READ_WEIGHT times its bases: the host makes its
 * hits, which costs that much more than turning a device's chains into
 * overlaps (reads come in order of the genome from a simulator, so an
 * array's reads would fill a few blocks and hold the run up on a few
 * threads). */
#define HOST_READ_WEIGHT 64

static void make_blocks(ctx_t *cx)
{
    uint32_t n = sg_readset_n(cx->rs);
    size_t m = 16;
    free(cx->block);
    cx->block = sg_malloc(m * sizeof *cx->block);
    cx->n_block = 0;
    uint64_t acc = 0;
    cx->block[0] = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (sg_readset_stored(cx->rs, i))
            acc += (uint64_t)sg_readset_len(cx->rs, i) * (cx->host && cx->host[i] ? HOST_READ_WEIGHT : 1);
        if (acc >= BLOCK_BASES || i + 1 == n) {
            if (cx->n_block + 2 > m) cx->block = sg_realloc(cx->block, (m *= 2) * sizeof *cx->block);
            cx->block[++cx->n_block] = i + 1;
            acc = 0;
        }
    }
}

/* The stored bases of block bi's reads (of the host's repeat reads only,
 * with host), for the progress line. */
uint64_t sg_ovl_block_bases(const ctx_t *cx, size_t bi, const uint8_t *host)
{
    uint64_t n = 0;
    for (uint32_t i = cx->block[bi]; i < cx->block[bi + 1]; i++)
        if (sg_readset_stored(cx->rs, i) && (!host || host[i])) n += sg_readset_len(cx->rs, i);
    return n;
}

/* A device that failed in the chaining (code, why): with o->fallback, the
 * host chains every read from its own index (nothing went to the sink yet),
 * the reason in err and st->chain_fallback set for the caller to say; else
 * the failure, in err. @return 0 or code */
static int device_failed(ctx_t *cx, dev_chain_t *dc, const sg_ovl_opts_t *o, int code, const char *why, char *err,
                         size_t errsz)
{
    snprintf(err, errsz, "%s", why);
    if (code != SG_ERR_DEVICE || !o->fallback) return code;
    cx->st->chain_fallback = 1;
    free(dc->out);
    dc->out = NULL;
    free(cx->host);
    free(cx->dev_first);
    sg_ovl_rep_store_free(cx->reps);
    cx->host = NULL;
    cx->dev_first = NULL;
    cx->dev = NULL;
    cx->reps = NULL;
    cx->st->hits = cx->st->repeat_reads = cx->st->device_reads = 0; /* the host's query counts them */
    make_blocks(cx);
    return 0;
}

int sg_overlaps_find(const sg_readset_t *rs, const sg_ovl_opts_t *o, sg_overlap_sink_t sink, void *arg,
                     sg_ovl_stats_t *st, char *err, size_t errsz)
{
    memset(st, 0, sizeof *st);
    ctx_t *cx = sg_calloc(1, sizeof *cx);
    cx->rs = rs;
    cx->o = *o;
    cx->hb = 2 * o->k - PART_BITS;
    cx->st = st;
    cx->sink = sink;
    cx->sink_arg = arg;
    int nt = o->n_threads > 0 ? o->n_threads : 1, r;
    double t0 = sg_realtime();
    uint64_t n_stored, bases, n_short, short_bases;
    sg_readset_totals(rs, &n_stored, &bases, &n_short, &short_bases);
    /* the device's sketch and sort say nothing until they are done */
    sg_progress_stage_bases(o->index ? "indexing the minimizers on the device" : "indexing the minimizers",
                            o->index ? 0 : bases);
    make_blocks(cx);
    dev_chain_t dc = {0};
    int on_device = 0; /* the device chains: its plan is made */
    if (o->index) {
        r = o->index->build(o->index, rs, o, &cx->dev_rec, cx->dev_part, &st->minimizers, err, errsz);
        st->index_device = r == 0;
        /* the device chains its reads while the host makes the buckets and the repeat reads' hits */
        if (r == 0 && o->index->chain_plan) {
            char why[512] = "";
            int rd = sg_ovl_dev_chain_start(cx, &dc, why, sizeof why);
            on_device = rd == 0;
            if (rd < 0) r = device_failed(cx, &dc, o, rd, why, err, errsz);
        }
        if (r == 0) r = sg_ovl_device_parts(cx, nt);
        free(cx->dev_rec);
        cx->dev_rec = NULL;
    } else {
        r = sg_ovl_sketch_blocks(cx, nt);
        if (r == 0) r = sg_ovl_sort_parts(cx, nt);
    }
    if (r == 0) {
        for (int p = 0; p < N_PART; p++) {
            st->buckets += cx->part[p].n_key;
            st->indexed += cx->part[p].bkt ? cx->part[p].bkt[cx->part[p].n_key].off : 0;
        }
        /* the device's choice when it chains: the same counts give the same */
        cx->max_occ = on_device ? dc.max_occ : o->max_occ ? o->max_occ : sg_ovl_choose_max_occ(cx);
        st->max_occ = cx->max_occ;
        for (int p = 0; p < N_PART; p++)
            for (uint32_t i = 0; i < cx->part[p].n_key; i++)
                st->rep_buckets += cx->part[p].bkt[i + 1].off - cx->part[p].bkt[i].off > cx->max_occ;
    }
    st->index_s = sg_realtime() - t0;
    t0 = sg_realtime();
    if (on_device) { /* the thread always ends here, before anything is freed */
        char why[512] = "";
        uint64_t host_bases = 0;
        for (uint32_t i = 0; i < sg_readset_n(rs); i++)
            if (cx->host[i] && sg_readset_stored(rs, i)) host_bases += sg_readset_len(rs, i);
        sg_progress_stage_bases("the repeat reads' hits, beside the device's chaining", host_bases);
        make_blocks(cx); /* the repeat reads weigh more */
        int rd = r == 0 && o->index->chain_hits ? sg_ovl_repeat_reads(cx, &dc, nt, why, sizeof why)
                                                : sg_ovl_dev_chain_join(cx, &dc, why, sizeof why);
        if (r == 0 && rd < 0) r = device_failed(cx, &dc, o, rd, why, err, errsz);
    }
    double t1 = sg_realtime();
    sg_progress_stage_bases(cx->dev_first ? "overlaps from the device's chains" : "overlapping", bases);
    if (r == 0) r = sg_ovl_overlaps(cx, nt);
    st->emit_s = sg_realtime() - t1;
    st->overlap_s = sg_realtime() - t0;
    for (int p = 0; p < N_PART; p++) {
        part_t *pa = &cx->part[p];
        free(pa->rec);
        free(pa->bkt);
        free(pa->ent);
        free(pa->dir);
    }
    free(cx->block);
    free(cx->host);
    free(cx->dev_first);
    sg_ovl_rep_store_free(cx->reps);
    free(dc.out);
    free(cx);
    return r;
}
