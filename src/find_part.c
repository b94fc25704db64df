#include "find_part.h"
#include "log.h"

#include <stdlib.h>
#include <string.h>

void sg_find_part_free(sg_find_part_t *p)
{
    for (int i = 0; i < p->n_inputs; i++) sg_fai_free(&p->fai[i]);
    free(p->fai);
    free(p->gzi);
    memset(p, 0, sizeof *p);
}

/* The input, record and base of base pos (< total) of all the inputs. */
static void locate(const sg_find_part_t *p, uint64_t pos, int *file, int64_t *rec, uint64_t *base)
{
    int f = 0;
    while (pos >= p->fai[f].bases) pos -= p->fai[f++].bases;
    int64_t r = 0;
    while (pos >= p->fai[f].rec[r].len) pos -= p->fai[f].rec[r++].len;
    *file = f;
    *rec = r;
    *base = pos;
}

int sg_find_part_plan(char *const *paths, int n_paths, long part, long n_parts, size_t overlap, sg_find_part_t *p)
{
    memset(p, 0, sizeof *p);
    p->fai = sg_calloc(n_paths, sizeof *p->fai);
    p->gzi = sg_calloc(n_paths, sizeof *p->gzi);
    for (int i = 0; i < n_paths; i++) {
        if (!strcmp(paths[i], "-")) {
            sg_error("--part seeks in its inputs, and standard input cannot be cut into parts: save it to a file "
                     "(bgzip it, then samtools faidx) and name that");
            sg_find_part_free(p);
            return SG_ERR_INPUT;
        }
        int r = sg_fai_load(paths[i], "--part", &p->fai[i]);
        if (r < 0) {
            sg_find_part_free(p);
            return r;
        }
        p->n_inputs = i + 1;
        p->gzi[i] = p->fai[i].gzi;
        p->total += p->fai[i].bases;
    }
    p->beg = (uint64_t)((unsigned __int128)p->total * (uint64_t)(part - 1) / (uint64_t)n_parts);
    p->end = (uint64_t)((unsigned __int128)p->total * (uint64_t)part / (uint64_t)n_parts);
    p->range.gzi = p->gzi;
    if (p->beg == p->end) {
        p->range.first = n_paths;
        return 0;
    }
    int64_t rec, last_rec;
    uint64_t last_base;
    locate(p, p->beg, &p->range.first, &rec, &p->rec_pos);
    locate(p, p->end - 1, &p->range.last, &last_rec, &last_base);
    const sg_fai_rec_t *r0 = &p->fai[p->range.first].rec[rec], *r1 = &p->fai[p->range.last].rec[last_rec];
    p->range.beg = sg_fai_offset(r0, p->rec_pos);
    p->name = r0->name;
    p->range.end = sg_fai_offset(r1, last_base) + 1;
    /* the bases after the part that a hit starting in it may reach */
    uint64_t tail = r1->len - 1 - last_base < overlap ? r1->len - 1 - last_base : overlap;
    p->range.tail_end = tail ? sg_fai_offset(r1, last_base + tail) + 1 : p->range.end;
    for (int i = 0; i < p->range.first; i++) p->file_rid0 += p->fai[i].n;
    p->rid = p->file_rid0 + rec;
    /* where the part starts and ends, the index must fit the file */
    if (sg_fai_check(paths[p->range.first], &p->fai[p->range.first], rec, p->rec_pos) < 0 ||
        sg_fai_check(paths[p->range.last], &p->fai[p->range.last], last_rec, last_base) < 0) {
        sg_find_part_free(p);
        return SG_ERR_INPUT;
    }
    return 0;
}
