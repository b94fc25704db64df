/* seqgpu: dispatch to the subcommands. */
#include <malloc.h>
#include <stdio.h>
#include <string.h>

#include <htslib/hts.h>

#ifdef SG_HAVE_CUDA
#include "cuda/runtime/util.h"
#endif
#include "registry.h"
#include "core/cli.h"
#include "core/log.h"
#include "core/version.h"
#include "formats/pgzip.h"

int main_find(int argc, char **argv);
int main_scc(int argc, char **argv);

static void usage(FILE *fp)
{
    fprintf(fp,
"seqgpu %s: GPU-accelerated sequence scanning\n"
"\n"
"Usage: seqgpu <command> [options]\n"
"\n"
"Commands:\n"
"  find      exact IUPAC motif search over FASTA/FASTQ, both strands (BED, TSV, counts)\n"
"  scc       repeats (tandem arrays, satellites, families) from de Bruijn graph SCCs\n"
"  help CMD  show the help of a command\n"
"  version   show the versions of seqgpu and its libraries\n"
"\n"
"Options:\n"
"  -V, --version  print the version and exit (every command takes it too)\n"
"  -h, --help     print this help and exit\n"
"\n"
"Run 'seqgpu CMD -h' for the options of a command; 'man seqgpu' for more.\n"
SG_EXIT_STATUS_TEXT,
            SG_VERSION);
}

int main(int argc, char **argv)
{
    /* chunks are allocated and freed by the thousand: keep freed buffers in
     * the heap instead of returning them to the kernel, which would zero
     * fresh pages on every reuse */
    mallopt(M_MMAP_THRESHOLD, 256 << 20);
    mallopt(M_TRIM_THRESHOLD, 512 << 20);
    if (argc < 2) {
        usage(stderr);
        return SG_EXIT_INPUT;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "find")) return sg_exit_finish(main_find(argc - 1, argv + 1));
    if (!strcmp(cmd, "scc")) return sg_exit_finish(main_scc(argc - 1, argv + 1));
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "-V")) return sg_version();
    if (!strcmp(cmd, "version")) {
        printf("seqgpu %s\nhtslib %s\nbackends: %s\n", SG_VERSION, hts_version(), sg_backend_list());
        printf("gzip: %s\n", sg_pgz_available() ? "plain gzip inflated on all threads (ISA-L)"
                                                 : "plain gzip inflated on one thread (built without ISA-L)");
#ifdef SG_HAVE_CUDA
        char cuda[128];
        sg_cuda_versions(cuda, sizeof cuda);
        printf("cuda: %s\n", cuda);
#endif
        return SG_EXIT_OK;
    }
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help")) {
        usage(stdout);
        return SG_EXIT_OK;
    }
    if (!strcmp(cmd, "help")) {
        if (argc < 3) {
            usage(stdout);
            return SG_EXIT_OK;
        }
        char *hargv[] = {argv[2], "-h", NULL};
        if (!strcmp(argv[2], "find")) return main_find(2, hargv);
        if (!strcmp(argv[2], "scc")) return main_scc(2, hargv);
        fprintf(stderr, "seqgpu: no help for unknown command '%s'\n", argv[2]);
        return SG_EXIT_INPUT;
    }
    fprintf(stderr, "seqgpu: unknown command '%s'\ntry 'seqgpu -h' for the commands\n", cmd);
    return SG_EXIT_INPUT;
}
