/* test_coop_vfork: a compiled yield point reached in the child of vfork() does not switch.
 * The child of vfork runs on its parent's stack with its parent's thread pointer, so it
 * reads the parent's ito_coop_flag and ito_coop_budget and its yield found the parent's
 * worker as its own: code built by ito-cc that the child ran before exec or _exit (any
 * function the vfork caller calls there: only the caller itself has no checks) switched
 * to the parent's other ULTs inside the child process, where their getpid() was the
 * child's and their waitpid() failed with ECHILD, while the parent slept in vfork.
 * Here main (the only ULT of its worker but for B, which is ready and has not run) vforks
 * with the flag (or the budget) due, and the child takes each flavour of compiled yield;
 * B must then run in the parent, never in the child. Found by an outside tester, h66d,
 * 2026-12-06 (Lua/CPython-style spawn helpers built by ito-cc, 8 ULTs on 2 workers under
 * FLAG preemption: about half of the other ULTs' work ran inside vfork children). */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ito/coop.h"
#include "ito/ito.h"
#include "ito_test.h"

static volatile pid_t b_pid;

static void *b_main(void *arg)
{
    (void)arg;
    b_pid = getpid();
    return NULL;
}

/* The child: a compiled yield point due (the parent's words), then _exit. */
static __attribute__((noinline, noreturn)) void child(int flavour)
{
    ito_test_coop_due_yield(flavour);
    _exit(b_pid == 0 ? 5 : 6); /* 6: B ran meanwhile, in this process */
}

static __attribute__((noinline)) int spawn(int flavour)
{
    pid_t pid = vfork();
    if (pid == 0) child(flavour);
    if (pid < 0) return -1;
    int st = 0;
    if (waitpid(pid, &st, 0) != pid) return -2;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 100 + WTERMSIG(st);
}

int main(void)
{
    ito_config_t cfg = {.workers = 1};
    CHECK_OK(ito_init(&cfg));
    pid_t me = getpid();
    for (int f = 0; f < ITO_TEST_COOP_FLAVOURS; f++) {
        b_pid = 0;
        ito_thread_t b;
        CHECK_OK(ito_create(&b, b_main, NULL, NULL)); /* ready on worker 0, not run yet */
        int st = spawn(f);
        if (st != 5) fprintf(stderr, "flavour %s: child exit %d\n", ito_test_coop_names[f], st);
        CHECK_EQ(st, 5);
        CHECK_OK(ito_join(b, NULL));
        if (b_pid != me) fprintf(stderr, "flavour %s: B ran in process %d (parent %d)\n", ito_test_coop_names[f], (int)b_pid, (int)me);
        CHECK_EQ(b_pid, me);
    }
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
