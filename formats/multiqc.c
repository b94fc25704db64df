#include "formats/multiqc.h"
#include "formats/outfile.h"
#include "core/log.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* What every file says of the section they share. */
const char sg_mqc_parent_json[] =
    "  \"parent_id\": \"seqgpu\",\n  \"parent_name\": \"seqgpu\",\n"
    "  \"parent_description\": \"Motif hits (seqgpu find) and k-mer spectra and cyclic repeats (seqgpu scc).\",\n";

char *sg_mqc_run_name(const char *stats)
{
    const char *slash = strrchr(stats, '/');
    char *name = sg_strdup(slash ? slash + 1 : stats);
    size_t n = strlen(name);
    if (sg_outfile_compressed(name)) n = (size_t)(strrchr(name, '.') - name);
    if (n > 5 && !strncmp(name + n - 5, ".json", 5)) n -= 5;
    name[n] = 0;
    return name;
}

char *sg_mqc_beside(const char *stats, const char *sample, const char *suffix)
{
    struct stat st;
    if (!stats || sg_outfile_fd(stats) >= 0 || (stat(stats, &st) == 0 && !S_ISREG(st.st_mode))) return NULL;
    const char *slash = strrchr(stats, '/');
    int dir = slash ? (int)(slash - stats + 1) : 0;
    size_t n = (size_t)dir + strlen(sample) + strlen(suffix) + 1;
    char *p = sg_malloc(n);
    snprintf(p, n, "%.*s%s%s", dir, stats, sample, suffix);
    return p;
}

void sg_mqc_cell(FILE *fp, const char *s)
{
    for (const char *p = s; *p; p++) fputc(*p == '\t' || *p == '\n' || *p == '\r' || (p == s && *p == '#') ? ' ' : *p, fp);
}
