#include "formats/input.h"
#include "formats/twobit.h"
#include "core/log.h"
#include "core/progress.h"

#include <string.h>
#include <sys/stat.h>

/* The size of a regular file as stored, or -1 (standard input, a pipe, no such file). */
static double stored_size(const char *path)
{
    struct stat st;
    if (!strcmp(path, "-") || stat(path, &st) != 0 || !S_ISREG(st.st_mode)) return -1;
    return (double)st.st_size;
}

double sg_input_bases(char *const *paths, int n_paths)
{
    double total = 0;
    for (int i = 0; i < n_paths; i++) {
        double size = stored_size(paths[i]);
        if (size < 0) return -1;
        size_t n = strlen(paths[i]);
        int gz = (n > 3 && !strcmp(paths[i] + n - 3, ".gz")) || (n > 4 && !strcmp(paths[i] + n - 4, ".bgz"));
        total += size * (gz ? 3 : sg_2bit_file(paths[i]) ? 4 : 1); /* .2bit: four bases a byte */
    }
    return total;
}

uint64_t sg_input_stored_bytes(char *const *paths, int n_paths)
{
    uint64_t total = 0;
    for (int i = 0; i < n_paths; i++) {
        double size = stored_size(paths[i]);
        if (size < 0) return 0;
        total += (uint64_t)size;
    }
    return total;
}

void sg_input_init(sg_input_t *in, sg_reader_t *reader, size_t overlap)
{
    in->reader = reader;
    sg_chunker_init(&in->chunker, overlap);
    in->emit = NULL;
}

void sg_input_free(sg_input_t *in)
{
    sg_chunker_free(&in->chunker);
    sg_reader_free(in->reader);
    in->reader = NULL;
}

int sg_input_read(void *ctx, void *item, sg_emit_t *emit)
{
    (void)item;
    sg_input_t *in = ctx;
    sg_chunk_t *c;
    int r = sg_reader_next(in->reader, &c);
    if (r > 0) sg_emit(emit, c);
    sg_progress_set(sg_reader_pos(in->reader));
    return r;
}

int sg_input_parse(void *ctx, void *item, sg_emit_t *emit)
{
    (void)ctx;
    (void)emit;
    /* a bad block keeps its error (c->err) and goes on: sg_input_chunk
     * reports it in input order, where an error returned here would stop the
     * run at whichever block a worker parsed first */
    const sg_chunk_t *c = item;
    int r = sg_parse_block(item);
    return r < 0 && !c->err ? r : 0;
}

static void chunk_out(void *arg, sg_chunk_t *c)
{
    sg_input_t *in = arg;
    sg_emit(in->emit, c);
}

int sg_input_chunk(void *ctx, void *item, sg_emit_t *emit)
{
    sg_input_t *in = ctx;
    sg_chunk_t *c = item;
    in->emit = emit;
    if (c && c->err) {
        int64_t recno;
        const char *name;
        sg_name_buf_t nb;
        sg_chunker_locate(&in->chunker, c, c->err_seg, &recno, &name);
        const char *path = sg_reader_path(in->reader, c->file);
        if (c->err_seg < 0) sg_error("cannot read '%s': %s", path, c->err);
        else if (name) sg_error("'%s': record %lld ('%s'): %s", path, (long long)recno, sg_name_shown(name, &nb), c->err);
        else sg_error("'%s': record %lld: %s", path, (long long)recno, c->err);
        sg_chunk_free(c);
        return SG_ERR_INPUT;
    }
    sg_chunker_push(&in->chunker, c, chunk_out, in);
    return 0;
}

void sg_input_free_chunk(void *ctx, void *item)
{
    (void)ctx;
    sg_chunk_free(item);
}
