/* test_dlclose_libito: a plugin that links the shared libito may be loaded, run a runtime
 * (ito_init ... ito_finalize) and be unloaded again and again, and even be unloaded with
 * its runtime still up: libito stays loaded once loaded (-z nodelete, src/CMakeLists.txt).
 *
 * Found by an outside tester (h78d, 2026-12-08): libito was unloaded with the plugin, and
 * each load made its process-wide state anew, left behind for good: per cycle 64 GiB of
 * address space (the handle arena) and two mappings, ~420 KB of RSS (the carved chunks,
 * the device table) and one pthread key (of the 1024 a process has); a plugin unloaded
 * without ito_finalize unmapped the code its workers ran, and the process died of SIGSEGV.
 * Checked here: libito is still loaded after the plugin's last dlclose, the cycles take no
 * pthread key and no address space, and after an unload without ito_finalize the process
 * goes on (50 ms of its runtime's preemption ticks, a fork, a thread) and exits normally. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ito_test.h"

#if !defined(ITO_TEST_PLUGIN) || !defined(ITO_TEST_LIBITO)
#error "ITO_TEST_PLUGIN, ITO_TEST_LIBITO: cycle_plugin's path and libito's soname (tests/CMakeLists.txt)"
#endif

static long vm_size_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, "VmSize:", 7) == 0) kb = atol(line + 7);
    if (f) fclose(f);
    return kb;
}

static int call(void *h, const char *name)
{
    void *sym = dlsym(h, name);
    CHECK(sym != NULL);
    int (*fn)(void);
    memcpy(&fn, &sym, sizeof fn);
    return fn();
}

static void *nothing(void *arg) { return arg; }

int main(void)
{
    alarm(60); /* a hang ends the test */
    unsigned key0 = 0;
    long vm0 = 0;
    for (int round = 0; round < 4; round++) {
        void *h = dlopen(ITO_TEST_PLUGIN, RTLD_NOW | RTLD_LOCAL);
        if (!h) fprintf(stderr, "dlopen: %s\n", dlerror());
        CHECK(h != NULL);
        CHECK_EQ(call(h, "plugin_cycle"), 0);
        CHECK_EQ(dlclose(h), 0);
        if (round == 0) {
            key0 = ito_test_next_pthread_key();
            vm0 = vm_size_kb();
        }
    }
    void *lib = dlopen(ITO_TEST_LIBITO, RTLD_NOW | RTLD_NOLOAD);
    CHECK(lib != NULL); /* still loaded */
    if (lib) dlclose(lib);
    CHECK_EQ(ito_test_next_pthread_key(), key0);
    CHECK(vm_size_kb() - vm0 < (1L << 20)); /* under 1 GiB; an arena per load was 64 GiB */

    /* unloaded with the runtime up: it idles in libito until the process exits */
    void *h = dlopen(ITO_TEST_PLUGIN, RTLD_NOW | RTLD_LOCAL);
    CHECK(h != NULL);
    CHECK_EQ(call(h, "plugin_start"), 0);
    CHECK_EQ(dlclose(h), 0);
    /* its ticks (every 1 ms) still come to this thread, the main ULT's, for 50 ms */
    struct timespec nap = {0, 1000000};
    for (uint64_t end = ito_test_now_ns() + 50000000; ito_test_now_ns() < end;) nanosleep(&nap, NULL);
    pid_t pid = fork();
    if (pid == 0) _exit(0);
    CHECK(pid > 0);
    int status = -1;
    CHECK_EQ(waitpid(pid, &status, 0), pid);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    pthread_t t;
    CHECK_EQ(pthread_create(&t, NULL, nothing, NULL), 0);
    CHECK_EQ(pthread_join(t, NULL), 0);
    TEST_DONE();
}
