/* test_init_in_dlopen_ctor: ito_init called from the constructor of a C library that the
 * program loads with dlopen (a plugin that starts its own runtime) returns, and the
 * runtime works; the library's destructor finalizes it at dlclose.
 *
 * Found by an outside tester (h68d, 2026-12-06): it hung for ever, every time. dlopen holds
 * the dynamic loader's lock while it runs the library's constructors; ito_init waited for
 * its workers, and each worker, binding its kernel thread, looked up the C++ runtime's
 * __cxa_get_globals with dlsym (a process without a C++ runtime has no weak binding for it),
 * which waits for that lock. Now the look-up runs once on ito_init's caller, before any
 * worker starts (src/core/runtime.c, itoi_eh_resolve).
 *
 * The program links no ito code itself (the plugin brings the shared libito): an alarm
 * turns the hang into a failure. */
#include <dlfcn.h>
#include <unistd.h>

#include "ito_test.h"

#ifndef ITO_TEST_PLUGIN
#error "ITO_TEST_PLUGIN: the path of init_ctor_plugin (tests/CMakeLists.txt)"
#endif

int main(void)
{
    alarm(15); /* the hang this test is about ends the process with SIGALRM */
    for (int round = 0; round < 2; round++) {
        void *h = dlopen(ITO_TEST_PLUGIN, RTLD_NOW | RTLD_LOCAL);
        if (!h) fprintf(stderr, "dlopen: %s\n", dlerror());
        CHECK(h != NULL);
        if (!h) break;
        int (*init_rc)(void) = (int (*)(void))dlsym(h, "plugin_init_rc");
        long (*sq)(long) = (long (*)(long))dlsym(h, "plugin_square");
        CHECK(init_rc != NULL && sq != NULL);
        if (init_rc && sq) {
            CHECK_EQ(init_rc(), 0);
            CHECK_EQ(sq(12), 144);
            CHECK_EQ(sq(-7), 49);
        }
        CHECK_EQ(dlclose(h), 0);
    }
    TEST_DONE();
}
