#define _GNU_SOURCE
#include "outfile.h"
#include "../src/log.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Temporaries to remove if a signal ends the run: a fixed table, since the
 * handler may only read memory and call unlink(). */
#define MAX_TMP 16
static char *volatile pending[MAX_TMP];

static void on_signal(int sig)
{
    for (int i = 0; i < MAX_TMP; i++)
        if (pending[i]) unlink(pending[i]);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void remember(char *tmp)
{
    static int installed;
    if (!installed) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGHUP, &sa, NULL);
        installed = 1;
    }
    for (int i = 0; i < MAX_TMP; i++)
        if (!pending[i]) {
            pending[i] = tmp;
            return;
        }
}

static void forget(const char *tmp)
{
    for (int i = 0; i < MAX_TMP; i++)
        if (pending[i] == tmp) pending[i] = NULL;
}

int sg_outfile_open(sg_outfile_t *o, const char *path)
{
    memset(o, 0, sizeof *o);
    if (!strcmp(path, "-")) {
        o->fp = stdout;
        o->path = sg_strdup("(standard output)");
        return 0;
    }
    o->path = sg_strdup(path);
    struct stat st;
    int direct = stat(path, &st) == 0 && !S_ISREG(st.st_mode); /* /dev/null, /dev/full, a FIFO */
    if (!direct) {
        size_t n = strlen(path) + 48;
        o->tmp = sg_malloc(n);
        snprintf(o->tmp, n, "%s.seqgpu-tmp.%d", path, (int)getpid());
        remember(o->tmp);
    }
    o->fp = fopen(o->tmp ? o->tmp : path, "w");
    if (!o->fp) {
        sg_error("cannot open '%s' for writing: %s", path, strerror(errno));
        sg_outfile_discard(o);
        return SG_ERR_INPUT;
    }
    return 0;
}

int sg_outfile_close(sg_outfile_t *o)
{
    int r = 0;
    if (o->fp) {
        errno = 0;
        int bad = fflush(o->fp) != 0 || ferror(o->fp);
        int e = errno;
        if (fclose(o->fp) != 0 && !bad) bad = 1, e = errno;
        o->fp = NULL;
        if (bad) {
            sg_error("cannot write to '%s': %s", o->path, strerror(e ? e : EIO));
            r = SG_ERR_SYSTEM;
        } else if (o->tmp && rename(o->tmp, o->path) != 0) {
            sg_error("cannot put the output in place as '%s': %s", o->path, strerror(errno));
            r = SG_ERR_SYSTEM;
        }
    }
    if (r < 0) {
        sg_outfile_discard(o);
        return r;
    }
    if (o->tmp) forget(o->tmp);
    free(o->tmp);
    free(o->path);
    o->tmp = o->path = NULL;
    return 0;
}

void sg_outfile_discard(sg_outfile_t *o)
{
    if (o->fp) fclose(o->fp);
    o->fp = NULL;
    if (o->tmp) {
        unlink(o->tmp);
        forget(o->tmp);
    }
    free(o->tmp);
    free(o->path);
    o->tmp = o->path = NULL;
}
