/* test_stack_exec: a program linked to need an executable stack (-z execstack, which gcc
 * asks for by itself when a nested function's trampoline is used) gets executable ULT
 * stacks, as glibc makes its thread stacks executable for it: code placed on a ULT's
 * stack runs, on every worker. Until 2026-12-06 ULT stacks were never executable and such
 * a call crashed, reported as a stack overflow (found by an outside tester, h67b:
 * a GCC nested function passed to ito_create). Linked with -Wl,-z,execstack
 * (tests/CMakeLists.txt); test_stack_exec_refused is the program without it. */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>

#include "ito/ito.h"
#include "ito_test.h"
#include "stack_exec_code.h"

/* Sanitizer trees: ASan keeps addressable locals on its own (not executable) fake stack,
 * and TSan's runtime does not run code placed on a stack; there only the ULT stacks'
 * protection is checked. */
#if defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define SANITIZED 1
#endif
#endif
#ifndef SANITIZED
#define SANITIZED 0
#endif

/* Whether the mapping that holds the calling ULT's frame is executable (/proc/self/maps). */
static void *frame_exec(void *arg)
{
    uintptr_t at = (uintptr_t)__builtin_frame_address(0);
    FILE *f = fopen("/proc/self/maps", "r");
    CHECK(f != NULL);
    char line[512];
    *(int *)arg = -1;
    while (fgets(line, sizeof line, f)) {
        unsigned long lo, hi;
        char perms[8];
        if (sscanf(line, "%lx-%lx %7s", &lo, &hi, perms) == 3 && at >= lo && at < hi) *(int *)arg = perms[2] == 'x';
    }
    fclose(f);
    return NULL;
}

int main(void)
{
    ito_config_t cfg = {.workers = 2};
    CHECK_OK(ito_init(&cfg));
    for (int w = 0; w < 2; w++) {
        ito_attr_t at;
        CHECK_OK(ito_attr_init(&at));
        at.worker = w;
        int got = 0;
        ito_thread_t t;
        CHECK_OK(ito_create(&t, frame_exec, &got, &at));
        CHECK_OK(ito_join(t, NULL));
        CHECK_EQ(got, 1);
        if (SANITIZED) continue;
        got = 0;
        CHECK_OK(ito_create(&t, stack_exec_body, &got, &at));
        CHECK_OK(ito_join(t, NULL));
        CHECK_EQ(got, 42);
        got = 0; /* the code on one ULT's stack, called by another */
        CHECK_OK(ito_create(&t, stack_exec_cross, &got, &at));
        CHECK_OK(ito_join(t, NULL));
        CHECK_EQ(got, 42);
    }
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
