/* test_segv_chain: a SIGSEGV that is not a ULT's stack overflow reaches the handler the
 * program had installed before ito_init (stack.c on_segv: "Not ours: hand it to whoever
 * was there before"), from main and from ULTs on every worker, both for an SA_SIGINFO
 * handler and for a plain one. Programs that catch their own faults (a GC's write
 * barrier, a guard page of their own, a JIT) keep working while the runtime runs.
 * test_process_restore checks which handler is installed, not that a fault reaches the
 * program's: with the chain cut (the default action instead), the first fault killed
 * the process. The handler makes the page writable and returns: the store runs again. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

static char *page;
static size_t psz;
static _Atomic int hits;

static void fix(void *addr)
{
    if ((char *)addr >= page && (char *)addr < page + psz) {
        atomic_fetch_add(&hits, 1);
        mprotect(page, psz, PROT_READ | PROT_WRITE);
        return;
    }
    signal(SIGSEGV, SIG_DFL); /* not the test's: die */
}

static void info_handler(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)uc;
    fix(si->si_addr);
}

static void plain_handler(int sig)
{
    (void)sig;
    /* no address: the only fault the test makes is on its page */
    atomic_fetch_add(&hits, 1);
    mprotect(page, psz, PROT_READ | PROT_WRITE);
}

static void fault_once(void)
{
    CHECK_OK(mprotect(page, psz, PROT_NONE));
    int before = atomic_load(&hits);
    ((volatile char *)page)[100] = 7; /* faults; the handler fixes it; the store reruns */
    CHECK_EQ(atomic_load(&hits), before + 1);
    CHECK_EQ(page[100], 7);
    page[100] = 0;
}

static void *ult(void *arg)
{
    (void)arg;
    fault_once();
    return NULL;
}

static void run(void)
{
    ito_config_t cfg = {0};
    cfg.workers = 2;
    CHECK_OK(ito_init(&cfg));
    fault_once(); /* main */
    for (int w = 0; w < 2; w++) {
        ito_attr_t a;
        ito_attr_init(&a);
        a.worker = w;
        ito_thread_t t;
        CHECK_OK(ito_create(&t, ult, NULL, &a));
        CHECK_OK(ito_join(t, NULL));
    }
    CHECK_OK(ito_finalize());
    fault_once(); /* and after finalize */
}

int main(void)
{
    psz = (size_t)sysconf(_SC_PAGESIZE);
    page = mmap(NULL, psz, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    CHECK(page != MAP_FAILED);

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_sigaction = info_handler;
    sa.sa_flags = SA_SIGINFO;
    CHECK_OK(sigaction(SIGSEGV, &sa, NULL));
    run();

    memset(&sa, 0, sizeof sa);
    sigemptyset(&sa.sa_mask);
    sa.sa_handler = plain_handler;
    CHECK_OK(sigaction(SIGSEGV, &sa, NULL));
    run();
    CHECK_EQ(atomic_load(&hits), 8);
    TEST_DONE();
}
