#define _GNU_SOURCE
#include "scc/dbg/counts.h"
#include "scc/dbg/counts_file.h"
#include "formats/input.h"
#include "core/log.h"
#include "core/pipeline.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct {
    sg_input_t in; /* first: the input steps take the context as theirs */
    sg_kmer_table_t *t;
} count_ctx_t;

static int step_count(void *vctx, void *item, sg_emit_t *emit)
{
    (void)emit;
    count_ctx_t *c = vctx;
    return c->t->add(c->t, item);
}

int sg_count_reads(sg_kmer_table_t *t, sg_reader_t *rd, int k, int n_threads)
{
    count_ctx_t c = {.t = t};
    sg_input_init(&c.in, rd, (size_t)k - 1);
    const sg_step_t steps[] = {
        {"read", sg_input_read, 1, 0},
        {"parse", sg_input_parse, 0, 0},
        {"chunk", sg_input_chunk, 1, 0},
        {"count", step_count, 0, 0},
    };
    sg_pipeline_opts_t po = {.n_threads = n_threads, .max_items = 2 * n_threads + 4, .free_item = sg_input_free_chunk};
    int r = sg_pipeline_run(steps, 4, &c, &po);
    sg_input_free(&c.in);
    if (r == 0) r = t->finish(t);
    if (r < 0 && r != SG_ERR_DEVICE && t->err[0]) sg_error("%s", t->err);
    return r;
}

/* Part `part` of n (from 0) of the k-mers, counted in t, into a counts file
 * of the pairs seen at least min times; the table is emptied. */
static int write_part(sg_kmer_table_t *t, const sg_graph_opts_t *o, uint32_t part, uint32_t n, uint32_t min, FILE *out,
                      const char *name, sg_counts_header_t *h)
{
    *h = (sg_counts_header_t){.k = o->k, .part = part + 1, .n_parts = n, .min_count = min, .bins = SG_HIST_BINS,
                              .inputs = (char **)o->inputs, .n_inputs = o->n_inputs};
    h->hist = sg_malloc(SG_HIST_BINS * sizeof *h->hist);
    /* the inputs' sizes, so that parts of other reads under the same names are refused */
    uint64_t *sizes = sg_malloc(((size_t)o->n_inputs + 1) * sizeof *sizes);
    for (int i = 0; i < o->n_inputs; i++) {
        struct stat st;
        sizes[i] = strcmp(o->inputs[i], "-") && stat(o->inputs[i], &st) == 0 && S_ISREG(st.st_mode)
                       ? (uint64_t)st.st_size
                       : SG_COUNTS_SIZE_UNKNOWN;
    }
    h->sizes = sizes;
    h->distinct = t->distinct(t);
    h->kmers = t->total(t);
    sg_kmer_counts_t kc = {0};
    int r = t->histogram(t, h->hist, SG_HIST_BINS);
    if (r == 0) r = t->take(t, min, &kc);
    if (r < 0 && t->err[0]) sg_error("%s", t->err);
    h->pairs = kc.n;
    if (r == 0) r = sg_counts_write(out, name, h, &kc, 1);
    sg_kmer_counts_free(&kc);
    free(sizes);
    h->sizes = NULL;
    return r;
}

int sg_counts_part(const sg_graph_opts_t *o, sg_reader_t *rd, uint32_t part, uint32_t n_parts, FILE *out,
                   const char *name, sg_part_summary_t *sum)
{
    const sg_kmer_opts_t ko = {.k = o->k, .n_threads = o->n_threads, .part = part - 1, .n_parts = n_parts,
                               .max_bytes = o->max_bytes, .tmp_dir = o->tmp_dir, .expect = o->expect,
                               .min_keep = sg_graph_min_count(o)};
    sg_kmer_table_t *t;
    char err[256];
    int r = sg_kmer_table_cpu(&ko, &t, err, sizeof err);
    if (r < 0) {
        sg_error("%s", err);
        sg_reader_free(rd);
        return r;
    }
    r = sg_count_reads(t, rd, o->k, o->n_threads);
    sg_counts_header_t h = {0};
    if (r == 0) r = write_part(t, o, part - 1, n_parts, sg_graph_min_count(o), out, name, &h);
    *sum = (sg_part_summary_t){h.kmers, h.distinct, h.pairs, h.min_count};
    if (r == 0)
        sg_info("part %u/%u: %llu k-mers, %llu distinct; wrote the %llu seen >= %u times to %s", part, n_parts,
                (unsigned long long)h.kmers, (unsigned long long)h.distinct, (unsigned long long)h.pairs, h.min_count,
                name);
    free(h.hist);
    t->free(t);
    return r;
}

/* A file's figures into the set (its header, read when the set is opened): 0, or SG_ERR_INPUT (said) when the
 * sums would pass 2^64, which no run's counts reach (each file's totals agree with its histogram, but a crafted one
 * may hold any) */
static int add_file(sg_counts_set_t *s, const char *path, const sg_counts_header_t *h)
{
    s->files = sg_realloc(s->files, (s->n_files + 1) * sizeof *s->files);
    s->files[s->n_files++] = (sg_counts_file_t){path, h->part, h->min_count, h->kmers, h->distinct, h->pairs};
    int over = s->total + h->kmers < s->total || s->distinct + h->distinct < s->distinct;
    for (int c = 0; c < SG_HIST_BINS; c++) over |= s->hist[c] + h->hist[c] < s->hist[c];
    if (over) {
        sg_error("'%s': the k-mers of the parts add up to more than 2^64: it is not a part of a run", path);
        return SG_ERR_INPUT;
    }
    for (int c = 0; c < SG_HIST_BINS; c++) s->hist[c] += h->hist[c];
    s->total += h->kmers;
    s->distinct += h->distinct;
    s->k = h->k;
    if (h->min_count > s->min_stored) s->min_stored = h->min_count;
    return 0;
}

/* A counts file's reader, or NULL (message printed). */
static sg_counts_reader_t *open_counts(const char *path)
{
    BGZF *fp = bgzf_open(path, "r");
    if (!fp) {
        sg_error("cannot read '%s': %s", path, strerror(errno ? errno : EIO));
        return NULL;
    }
    sg_counts_reader_t *f;
    return sg_counts_open(fp, path, SG_HIST_BINS, &f) == 0 ? f : NULL;
}

/* parts in order, then the order given */
static int cmp_part(const void *a, const void *b)
{
    const uint32_t *x = a, *y = b;
    return x[0] != y[0] ? (x[0] > y[0]) - (x[0] < y[0]) : (x[1] > y[1]) - (x[1] < y[1]);
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The inputs of h and h0 have the same names (folders apart). */
static int same_names(const sg_counts_header_t *h, const sg_counts_header_t *h0)
{
    if (h->n_inputs != h0->n_inputs) return 0;
    for (int i = 0; i < h->n_inputs; i++)
        if (strcmp(base_name(h->inputs[i]), base_name(h0->inputs[i]))) return 0;
    return 1;
}

/* Every input's size as the parts saw it: the first file that knew it
 * (from[j]: its index, -1 while none did) sets it, and any other file that
 * knows it must agree. 0, or SG_ERR_INPUT (message printed). */
static int same_sizes(char *const *paths, int i, const sg_counts_header_t *h, uint64_t *size, int *from)
{
    for (int j = 0; j < h->n_inputs; j++) {
        if (h->sizes[j] == SG_COUNTS_SIZE_UNKNOWN) continue;
        if (from[j] < 0) {
            size[j] = h->sizes[j];
            from[j] = i;
        } else if (size[j] != h->sizes[j]) {
            sg_name_buf_t nb;
            sg_error("'%s' and '%s' count different reads: their '%s' had %llu and %llu bytes; the parts of one run "
                     "read the same inputs",
                     paths[from[j]], paths[i], sg_name_shown(base_name(h->inputs[j]), &nb), (unsigned long long)size[j],
                     (unsigned long long)h->sizes[j]);
            return SG_ERR_INPUT;
        }
    }
    return 0;
}

int sg_counts_open_set(char *const *paths, int n, int k_given, int k, sg_counts_set_t *s)
{
    uint32_t *part = sg_malloc(((size_t)n + 1) * 2 * sizeof *part), n_parts = 0; /* (part, index) */
    int r = 0;
    uint64_t *size = NULL; /* the inputs' sizes, as the parts knew them */
    int *from = NULL, unsure = 0;
    char *unsure_input = NULL;
    /* the first file stays open while the others are checked against it, each closed after */
    sg_counts_reader_t *f0 = NULL;
    for (int i = 0; i < n && r == 0; i++) {
        sg_counts_reader_t *f = open_counts(paths[i]);
        if (!f) {
            r = SG_ERR_INPUT;
            break;
        }
        const sg_counts_header_t *h = sg_counts_header(f);
        if (!f0) f0 = f;
        const sg_counts_header_t *h0 = sg_counts_header(f0);
        if (h->k != h0->k) {
            sg_error("'%s' counts %d-mers and '%s' %d-mers: the parts of one run have one k", paths[0], h0->k,
                     paths[i], h->k);
            r = SG_ERR_INPUT;
        } else if (k_given && h->k != k) {
            sg_error("'%s' counts %d-mers, not %d-mers (-k): leave -k out, the files give it", paths[i], h->k, k);
            r = SG_ERR_INPUT;
        } else if (h->n_parts != h0->n_parts) {
            sg_error("'%s' is part %u/%u and '%s' part %u/%u: the parts of one run are cut into the same number",
                     paths[0], h0->part, h0->n_parts, paths[i], h->part, h->n_parts);
            r = SG_ERR_INPUT;
        } else if (!same_names(h, h0)) {
            sg_name_buf_t n0, n1;
            sg_error("'%s' counts the k-mers of %s%s and '%s' of %s%s: the parts of one run read the same inputs",
                     paths[0], h0->n_inputs ? sg_name_shown(base_name(h0->inputs[0]), &n0) : "nothing",
                     h0->n_inputs > 1 ? " ..." : "", paths[i],
                     h->n_inputs ? sg_name_shown(base_name(h->inputs[0]), &n1) : "nothing", h->n_inputs > 1 ? " ..." : "");
            r = SG_ERR_INPUT;
        } else {
            if (i == 0) {
                size = sg_malloc(((size_t)h->n_inputs + 1) * sizeof *size);
                from = sg_malloc(((size_t)h->n_inputs + 1) * sizeof *from);
                for (int j = 0; j < h->n_inputs; j++) from[j] = -1;
            }
            r = same_sizes(paths, i, h, size, from);
            for (int j = 0; j < h->n_inputs && !unsure; j++)
                if (h->sizes[j] == SG_COUNTS_SIZE_UNKNOWN) {
                    unsure = i + 1;
                    unsure_input = sg_strdup(h->inputs[j]);
                }
        }
        part[2 * i] = h->part;
        part[2 * i + 1] = (uint32_t)i;
        n_parts = h->n_parts;
        if (add_file(s, paths[i], h) < 0 && r == 0) r = SG_ERR_INPUT;
        /* the reads counted, for the pictures' titles: the part 1's names */
        if (h->part == 1 && !s->inputs) {
            s->inputs = sg_calloc((size_t)h->n_inputs + 1, sizeof *s->inputs);
            for (int j = 0; j < h->n_inputs; j++) s->inputs[j] = sg_strdup(h->inputs[j]);
            s->n_inputs = h->n_inputs;
        }
        if (f != f0) sg_counts_close(f);
    }
    sg_counts_close(f0);
    if (r == 0) {
        qsort(part, n, 2 * sizeof *part, cmp_part);
        uint32_t missing = 0;
        for (int i = 0; i < n && r == 0; i++) {
            if (i && part[2 * i] == part[2 * i - 2]) {
                sg_error("part %u/%u is given twice ('%s' and '%s'): give each part of the run once", part[2 * i],
                         n_parts, paths[part[2 * i - 1]], paths[part[2 * i + 1]]);
                r = SG_ERR_INPUT;
            }
            if (!missing && part[2 * i] != (uint32_t)i + 1) missing = (uint32_t)i + 1;
        }
        if (r == 0 && (uint32_t)n < n_parts) missing = missing ? missing : (uint32_t)n + 1;
        if (r == 0 && missing) {
            sg_error("part %u/%u is missing: give all %u counts files of the run", missing, n_parts, n_parts);
            r = SG_ERR_INPUT;
        }
    }
    if (r == 0 && unsure) {
        sg_name_buf_t nb;
        sg_warn("'%s' counted '%s' from a pipe, whose size cannot be compared: make sure every part read the same "
                "reads", paths[unsure - 1], sg_name_shown(unsure_input, &nb));
    }
    free(unsure_input);
    free(size);
    free(from);
    free(part);
    return r;
}

/* Whether the reader's header is still what the set recorded of the file. */
static int same_file(const sg_counts_file_t *f, const sg_counts_header_t *h, int k)
{
    return h->k == k && h->part == f->part && h->min_count == f->min_count && h->kmers == f->kmers &&
           h->distinct == f->distinct && h->pairs == f->pairs;
}

int sg_counts_load(sg_counts_set_t *s, uint32_t min, sg_kmer_table_t *t)
{
    if (min < s->min_stored) {
        sg_error("the counts files hold the k-mers seen %u times or more, but the threshold is %u: count the parts "
                 "with -c %u (or lower), or set -c %u or more here", s->min_stored, min, min, s->min_stored);
        return SG_ERR_INPUT;
    }
    sg_kmer_counts_t kc = {0};
    const int words = s->k > 31 ? 2 : 1;
    int r = 0;
    for (int i = 0; i < s->n_files && r == 0; i++) {
        sg_counts_reader_t *f = open_counts(s->files[i].path);
        if (!f) {
            r = SG_ERR_INPUT;
            break;
        }
        if (!same_file(&s->files[i], sg_counts_header(f), s->k)) {
            sg_error("'%s' changed while the run read it: give the counts files of one run, left as they are",
                     s->files[i].path);
            r = SG_ERR_INPUT;
        }
        while (r == 0 && (r = sg_counts_next(f, &kc)) > 0) {
            uint64_t m = 0;
            for (uint64_t j = 0; j < kc.n; j++) {
                if (kc.count[j] < min) continue;
                memmove(kc.kmer + words * m, kc.kmer + words * j, words * sizeof *kc.kmer);
                kc.count[m++] = kc.count[j];
            }
            kc.n = m;
            if ((r = t->add_counts(t, &kc)) < 0) break;
        }
        sg_counts_close(f);
    }
    sg_kmer_counts_free(&kc);
    return r;
}

void sg_counts_set_free(sg_counts_set_t *s)
{
    free(s->files);
    s->files = NULL;
    s->n_files = 0;
    for (int i = 0; i < s->n_inputs; i++) free(s->inputs[i]);
    free(s->inputs);
    s->inputs = NULL;
    s->n_inputs = 0;
}
