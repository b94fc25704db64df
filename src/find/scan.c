#include "find/scan.h"
#include "core/log.h"

int sg_scan_hits(sg_backend_t *be, const sg_chunk_t *c, sg_scan_at_t *at, sg_hits_t *buf, size_t *window,
                 sg_hits_fn fn, void *arg)
{
    size_t w = __atomic_load_n(window, __ATOMIC_RELAXED);
    int ret = 0;
    if (!w) w = SIZE_MAX;
    for (;;) {
        size_t from = at->pos, to = c->len - from <= w ? c->len : from + w;
        buf->n = 0;
        if (from < to) {
            int r = be->scan(be, c, from, to, buf);
            if (r < 0) return r;
            if (sg_hits_over(buf)) {
                if (to - from == 1) {
                    sg_error("internal error: more hits at one start than ranks (patterns and their bulge variants)");
                    return SG_ERR_SYSTEM;
                }
                /* about half full at the density found, and at least twice shorter */
                double fit = (double)(to - from) * (double)buf->max / (2.0 * (double)buf->n);
                w = fit < (double)((to - from) / 2) ? (size_t)fit : (to - from) / 2;
                if (!w) w = 1;
                continue;
            }
            sg_hits_sort(buf);
        }
        size_t first = 0, taken;
        while (first < buf->n && buf->a[first] < at->skip) first++;
        sg_hits_t batch = {buf->a + first, buf->n - first, buf->n - first, 0};
        if (!fn(arg, &batch, to, &taken)) {
            at->pos = taken < batch.n ? sg_hit_pos(batch.a[taken]) : to;
            at->skip = taken < batch.n ? batch.a[taken] : 0;
            ret = 1;
            break;
        }
        at->pos = to;
        at->skip = 0;
        if (to == c->len) break;
        if (buf->n < buf->max / 4 && w <= SIZE_MAX / 2) w *= 2;
    }
    __atomic_store_n(window, w, __ATOMIC_RELAXED);
    return ret;
}
