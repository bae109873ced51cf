/* test_stack_exec_refused: in a program that does not ask for an executable stack, code
 * run from a ULT's stack faults (the stacks are not executable, as a pthread's are not),
 * and ito's fault handler does not call that a stack overflow: until 2026-12-06 the jump
 * was reported as "stack overflow in ULT ... ran past its stack into the guard" whatever
 * the stack's size (the faulting address, the code on the stack, lay near a neighbouring
 * stack's guard; found by an outside tester, h67b, 2026-12-06). A child process makes the
 * call; its stderr is read back. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"
#include "stack_exec_code.h"

int main(void)
{
    int pp[2];
    CHECK_EQ(pipe(pp), 0);
    pid_t p = fork();
    CHECK(p >= 0);
    if (p == 0) {
        dup2(pp[1], 2);
        close(pp[0]);
        ito_config_t cfg = {.workers = 1};
        if (ito_init(&cfg) != ITO_OK) _exit(3);
        int got = 0;
        ito_thread_t t;
        if (ito_create(&t, stack_exec_cross, &got, NULL) != ITO_OK) _exit(3);
        (void)ito_join(t, NULL);
        _exit(got == 42 ? 4 : 5); /* not reached: the call faults */
    }
    close(pp[1]);
    char out[8192];
    size_t n = 0;
    for (ssize_t r; n < sizeof out - 1 && (r = read(pp[0], out + n, sizeof out - 1 - n)) > 0;) n += (size_t)r;
    out[n] = 0;
    int st;
    CHECK_EQ(waitpid(p, &st, 0), p);
    /* killed by SIGSEGV, or (a sanitizer's own handler) exited with its error code */
    CHECK(WIFSIGNALED(st) || (WIFEXITED(st) && WEXITSTATUS(st) != 3 && WEXITSTATUS(st) != 4 && WEXITSTATUS(st) != 0));
    if (strstr(out, "stack overflow")) fprintf(stderr, "child said:\n%s\n", out);
    CHECK(strstr(out, "stack overflow") == NULL);
    TEST_DONE();
}
