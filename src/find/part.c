#include "find/part.h"
#include "formats/mapguard.h"
#include "formats/twobit.h"
#include "core/log.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

void sg_find_part_free(sg_find_part_t *p)
{
    for (int i = 0; i < p->n_inputs; i++) sg_fai_free(&p->fai[i]);
    free(p->fai);
    free(p->gzi);
    free(p->twobit);
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

typedef struct {
    const void *map;
    size_t size;
    sg_2bit_t tb;
    char err[256];
} twobit_parse_t;

static int parse_2bit(void *arg)
{
    twobit_parse_t *t = arg;
    return sg_2bit_parse(t->map, t->size, &t->tb, t->err, sizeof t->err);
}

/* A .2bit file's index as a .fai's: each record's "offset" is its first
 * base counted over the file's records (the reader's part offsets of a
 * .2bit file), one line a record. */
static int index_2bit(const char *path, sg_fai_t *idx)
{
    struct stat st;
    int fd = open(path, O_RDONLY);
    if (fd < 0 || fstat(fd, &st) != 0) {
        sg_error("cannot read '%s': %s", path, strerror(errno));
        if (fd >= 0) close(fd);
        return SG_ERR_INPUT;
    }
    twobit_parse_t t = {.size = (size_t)st.st_size};
    void *m = mmap(NULL, t.size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (m == MAP_FAILED) {
        sg_error("cannot read '%s': %s", path, strerror(errno));
        return SG_ERR_INPUT;
    }
    t.map = m;
    sg_map_guard_init();
    int lost, r = sg_map_guarded(parse_2bit, &t, &lost);
    if (r < 0) sg_error("cannot read '%s': %s", path, lost ? SG_MAP_LOST : t.err);
    memset(idx, 0, sizeof *idx);
    if (r == 0) {
        idx->n = t.tb.n;
        idx->rec = sg_calloc(t.tb.n ? t.tb.n : 1, sizeof *idx->rec);
        for (int i = 0; i < t.tb.n; i++) {
            sg_fai_rec_t *x = &idx->rec[i];
            x->name = sg_strdup(t.tb.rec[i].name);
            x->len = t.tb.rec[i].len;
            x->off = idx->bases;
            x->line_bases = x->line_bytes = (uint64_t)1 << 62; /* sg_fai_offset(x, pos) = off + pos */
            idx->bases += x->len;
        }
    }
    if (!lost) sg_2bit_free(&t.tb);
    munmap(m, t.size);
    return r < 0 ? SG_ERR_INPUT : 0;
}

int sg_find_part_plan(char *const *paths, int n_paths, long part, long n_parts, size_t overlap, sg_find_part_t *p)
{
    memset(p, 0, sizeof *p);
    p->fai = sg_calloc(n_paths, sizeof *p->fai);
    p->gzi = sg_calloc(n_paths, sizeof *p->gzi);
    p->twobit = sg_calloc(n_paths, 1);
    for (int i = 0; i < n_paths; i++) {
        if (!strcmp(paths[i], "-")) {
            sg_error("--part seeks in its inputs, and standard input cannot be cut into parts: save it to a file "
                     "(bgzip it, then samtools faidx) and name that");
            sg_find_part_free(p);
            return SG_ERR_INPUT;
        }
        p->twobit[i] = (uint8_t)sg_2bit_file(paths[i]);
        int r = p->twobit[i] ? index_2bit(paths[i], &p->fai[i]) : sg_fai_load(paths[i], "--part", &p->fai[i]);
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
    if ((!p->twobit[p->range.first] && sg_fai_check(paths[p->range.first], &p->fai[p->range.first], rec, p->rec_pos) < 0) ||
        (!p->twobit[p->range.last] && sg_fai_check(paths[p->range.last], &p->fai[p->range.last], last_rec, last_base) < 0)) {
        sg_find_part_free(p);
        return SG_ERR_INPUT;
    }
    return 0;
}
