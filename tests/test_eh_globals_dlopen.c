/* test_eh_globals_dlopen.c: a C program whose C++ runtime arrives by dlopen before ito_init
 * still has its ULTs' C++ exception state switched with them (ultstate.h: "while a ULT runs,
 * its kernel thread's exception globals are the ULT's own").
 *
 * Found by an outside tester, h65e, 2026-12-06: a C host linked with -lito that dlopened a
 * C++ library had libito's weak reference to __cxa_get_globals bound to NULL at start-up,
 * so nothing was switched: a ULT that yielded inside a catch block and then did `throw;`
 * rethrew another ULT's exception (7996 of 8000 checks wrong). This test needs no C++
 * compiler: it loads libstdc++ itself (RTLD_LOCAL, as a plugin's dependency is), then two
 * ULTs on one worker each write their own value into the count word of the exception
 * globals (std::uncaught_exceptions), yield to each other and check that they find their
 * own value again. Skipped where libstdc++.so.6 cannot be loaded, and when this binary has
 * a C++ runtime already. */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "ito/ito.h"
#include "ito_test.h"

typedef struct { void *caught; unsigned int uncaught; } eh_globals_t; /* both ABIs, x86-64 */
static void *(*get_globals)(void);
static int wrong;

static void *ult(void *arg)
{
    unsigned int mine = (unsigned int)(uintptr_t)arg;
    eh_globals_t *g = get_globals();
    if (g->uncaught != 0) wrong++; /* a new ULT starts with empty globals */
    g->uncaught = mine;
    for (int i = 0; i < 100; i++) {
        ito_yield();
        g = get_globals(); /* this kernel thread's (one worker: the same thread) */
        if (g->uncaught != mine) wrong++;
        g->uncaught = mine;
    }
    g->uncaught = 0;
    return NULL;
}

int main(void)
{
    if (dlsym(RTLD_DEFAULT, "__cxa_get_globals") != NULL) {
        printf("SKIP: this program has a C++ runtime already\n");
        return 0;
    }
    /* RTLD_LOCAL, as a plugin's dependencies are loaded: not in the global scope */
    void *h = dlopen("libstdc++.so.6", RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        printf("SKIP: %s\n", dlerror());
        return 0;
    }
    void *sym = dlsym(h, "__cxa_get_globals");
    CHECK(sym != NULL);
    memcpy(&get_globals, &sym, sizeof get_globals);

    ito_config_t cfg = {0};
    cfg.workers = 1;
    CHECK_OK(ito_init(&cfg));
    ito_thread_t t[2];
    for (uintptr_t i = 0; i < 2; i++) CHECK_OK(ito_create(&t[i], ult, (void *)(i + 41), NULL));
    for (int i = 0; i < 2; i++) CHECK_OK(ito_join(t[i], NULL));
    CHECK_OK(ito_finalize());
    CHECK_EQ(wrong, 0);
    TEST_DONE();
}
