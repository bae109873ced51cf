/* test_dlclose_static_key: a plugin with libito.a linked into it, loaded, run (ito_init ...
 * ito_finalize) and unloaded again and again, gives back the pthread key its runtime took
 * (src/core/runtime.c, key_give_back).
 *
 * Found by an outside tester (h78d, 2026-12-08): each load that ran ito_init took one of
 * the process's 1024 pthread keys for good (its destructor pointing into the unloaded
 * code), so that a host cycling such a plugin ran out of keys for its own
 * pthread_key_create. (The rest of what such a copy leaves behind per load, its handle
 * arena and device table, is a known limit: thread.h, "Loading and unloading".) */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>
#include <unistd.h>

#include "ito_test.h"

#ifndef ITO_TEST_PLUGIN
#error "ITO_TEST_PLUGIN: the path of cycle_plugin_static (tests/CMakeLists.txt)"
#endif

int main(void)
{
    alarm(60); /* a hang ends the test */
    unsigned key0 = ito_test_next_pthread_key();
    for (int round = 0; round < 3; round++) {
        void *h = dlopen(ITO_TEST_PLUGIN, RTLD_NOW | RTLD_LOCAL);
        if (!h) fprintf(stderr, "dlopen: %s\n", dlerror());
        CHECK(h != NULL);
        void *sym = dlsym(h, "plugin_cycle");
        CHECK(sym != NULL);
        int (*cycle)(void);
        memcpy(&cycle, &sym, sizeof cycle);
        CHECK_EQ(cycle(), 0);
        CHECK_EQ(dlclose(h), 0);
        CHECK_EQ(ito_test_next_pthread_key(), key0);
    }
    TEST_DONE();
}
