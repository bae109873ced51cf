/* rdynhost.c: a host like an interpreter that loads extensions (QuickJS's qjs): built by
 * ito-cc without the runtime (so ito-cc links its fallback, compiler/itocc/fallback.py) and
 * with -rdynamic, which exports the fallback's flag and yields. It dlopen()s argv[1], an
 * extension linked with libito (examples/compiled_yield.c built with -Dmain=ext_run: its
 * spinner gets preempted only at its compiled yield points, which are bound to this
 * host's fallback), and returns what its ext_run returns. */
#include <dlfcn.h>
#include <stdio.h>

static long work(long n)
{
    long s = 0;
    for (long i = 0; i < n; i++) s += i * i; /* a loop with a yield point */
    return s;
}

int main(int argc, char **argv)
{
    if (argc != 2) return 2;
    printf("host %ld\n", work(1000));
    void *h = dlopen(argv[1], RTLD_NOW);
    if (!h) {
        printf("dlopen: %s\n", dlerror());
        return 2;
    }
    int (*run)(void) = (int (*)(void))dlsym(h, "ext_run");
    return run ? run() : 2;
}
