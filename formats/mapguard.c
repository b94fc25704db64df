#define _GNU_SOURCE
#include "formats/mapguard.h"
#include "core/log.h"

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>

static __thread sigjmp_buf *bus_jmp;
static struct sigaction bus_prev;
static pthread_once_t bus_once = PTHREAD_ONCE_INIT;

static void on_sigbus(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    if (bus_jmp) siglongjmp(*bus_jmp, 1);
    /* not a mapped input's: a fault happens again under the handler there was
     * before, a signal someone sent is sent again */
    sigaction(sig, &bus_prev, NULL);
    if (si->si_code <= 0) raise(sig);
}

static void install_bus_handler(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigbus;
    sa.sa_flags = SA_SIGINFO | SA_NODEFER; /* no mask to restore after the jump */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGBUS, &sa, &bus_prev);
}

void sg_map_guard_init(void) { pthread_once(&bus_once, install_bus_handler); }

int sg_map_guarded(int (*fn)(void *arg), void *arg, int *lost)
{
    sigjmp_buf jb;
    *lost = 0;
    if (sigsetjmp(jb, 0)) {
        bus_jmp = NULL;
        *lost = 1;
        return SG_ERR_INPUT;
    }
    bus_jmp = &jb;
    int ret = fn(arg);
    bus_jmp = NULL;
    return ret;
}
