/* libFuzzer: the PAF reader of scc -g overlap on any bytes, against a
 * fixed set of reads (a of 4000 bases, b of 3000, c of 500, too short to be
 * kept). Whatever it accepts must be overlaps between kept reads, inside
 * them, never a read onto itself at the same place, with an identity from
 * 0 to 1; and each must classify. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "scc/overlap/paf.h"
#include "scc/overlap/overlap.h"
#include "scc/overlap/readset.h"
#include "fuzz_util.h"

static sg_readset_t *reads(void)
{
    static sg_readset_t *rs;
    if (rs) return rs;
    static const char *const name[] = {"a", "b", "c"};
    static const size_t len[] = {4000, 3000, 500};
    rs = sg_readset_new(1000);
    sg_chunk_t *c = sg_chunk_new(8000);
    for (int i = 0; i < 3; i++) {
        sg_seg_t *s = sg_chunk_add_seg(c);
        s->rid = i;
        s->off = c->len;
        s->len = len[i];
        s->name = sg_chunk_add_name(c, name[i], 1);
        for (size_t j = 0; j < len[i]; j++) c->seq[c->len++] = "ACGT"[(j * 7 + i) % 4];
    }
    if (sg_readset_add(rs, c) < 0 || sg_readset_finish(rs, NULL) < 0) fuzz_fail("the reads");
    sg_chunk_free(c);
    return rs;
}

static int check(void *arg, const sg_overlap_t *ov, size_t n)
{
    const sg_readset_t *rs = arg;
    for (size_t i = 0; i < n; i++) {
        const sg_overlap_t *o = &ov[i];
        if (o->q >= sg_readset_n(rs) || o->t >= sg_readset_n(rs) || !sg_readset_stored(rs, o->q) || !sg_readset_stored(rs, o->t))
            fuzz_fail("overlap of reads %u and %u", o->q, o->t);
        uint32_t ql = sg_readset_len(rs, o->q), tl = sg_readset_len(rs, o->t), f, t, l;
        if (o->qs >= o->qe || o->qe > ql || o->ts >= o->te || o->te > tl)
            fuzz_fail("%u-%u on %u bases, %u-%u on %u", o->qs, o->qe, ql, o->ts, o->te, tl);
        if (o->q == o->t && !o->rev && o->qs == o->ts) fuzz_fail("a read onto itself at %u", o->qs);
        if (!(o->identity >= 0 && o->identity <= 1)) fuzz_fail("identity %f", o->identity);
        int kind = sg_overlap_classify(o, ql, tl, 1000, &f, &t, &l);
        if (kind == SG_OVL_DOVETAIL && (f >> 1 != o->q || t >> 1 != o->t || l > ql || l > tl))
            fuzz_fail("dovetail %u -> %u of %u bases between reads %u and %u", f, t, l, o->q, o->t);
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    int fd = fuzz_file(data, size, path, sizeof path);
    if (fd < 0) return 0;
    sg_readset_t *rs = reads();
    int r = sg_paf_read(path, rs, check, rs);
    if (r < 0 && r != SG_ERR_INPUT) fuzz_fail("return %d", r);
    close(fd);
    return 0;
}
