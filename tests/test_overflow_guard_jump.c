/* test_overflow_guard_jump: a frame that jumps 9 KiB below the end of a 16 KiB stack
 * without touching the pages in between (code built without -fstack-clash-protection,
 * emulated here by a store 24 KiB below the stack pointer) lands in the 16 KiB guard
 * below small stacks (stack.c, docs/ARCHITECTURE.md: "a frame that jumps a page or two
 * still lands in it") and is reported as an overflow naming the ULT; the process dies.
 * With a guard of one page, the store landed in the stack slot below (another ULT's
 * stack, mapped): no fault, silent corruption. test_overflow_child's --jump covers 64 KiB
 * stacks (64 KiB guards) only. The ULTs created first keep their slots, so that the
 * jumper's slot is not the lowest of its region. Runs the overflow in a child process. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

static ito_sem_t hold;

static void *holder(void *arg)
{
    (void)arg;
    CHECK_OK(ito_sem_wait(&hold));
    return NULL;
}

static void *jumper(void *arg)
{
    (void)arg;
    /* 24 KiB below sp, about 1 KiB below the stack's top: 9 KiB past its end */
    __asm__ volatile("subq $24576, %%rsp\n\t"
                     "movb $1, (%%rsp)\n\t"
                     "addq $24576, %%rsp" ::: "memory");
    return NULL;
}

static int child(void)
{
    ito_config_t cfg = {0};
    cfg.workers = 1;
    CHECK_OK(ito_init(&cfg));
    CHECK_OK(ito_sem_init(&hold, 0));
    ito_attr_t a;
    CHECK_OK(ito_attr_init(&a));
    a.stack_size = 16 * 1024;
    ito_thread_t h[4], j;
    for (int i = 0; i < 4; i++) CHECK_OK(ito_create(&h[i], holder, NULL, &a));
    for (int i = 0; i < 10; i++) ito_yield(); /* they take their stacks */
    a.name = "jumper";
    CHECK_OK(ito_create(&j, jumper, NULL, &a));
    CHECK_OK(ito_join(j, NULL));
    return 0; /* not reached: the jump must end the process */
}

int main(void)
{
    ito_test_expect_overflow(child, "jumper");
    TEST_DONE();
}
