/* libFuzzer: the motif compiler on any string, and on any motif file. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "find/motif.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char err[512];
    sg_motif_set_t ms = {0};
    char *s = malloc(size + 1);
    memcpy(s, data, size);
    s[size] = 0;
    if (sg_motif_add(&ms, NULL, s, err, sizeof err) == 0) {
        sg_motif_compile(&ms, SG_STRAND_BOTH);
        if (ms.n_pat < 1 || ms.n_pat > 2) fuzz_fail("one motif, %d patterns", ms.n_pat);
    }
    free(s);
    char path[64];
    int fd = fuzz_file(data, size, path, sizeof path);
    if (fd >= 0) {
        if (sg_motif_load(&ms, path, err, sizeof err) > 0) sg_motif_compile(&ms, SG_STRAND_BOTH);
        close(fd);
    }
    sg_motif_set_free(&ms);
    return 0;
}
