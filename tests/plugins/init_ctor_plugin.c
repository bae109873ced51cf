/* init_ctor_plugin: a C library (no C++ runtime) that starts ito in its constructor and
 * stops it in its destructor, loaded with dlopen by test_init_in_dlopen_ctor. */
#include <ito/ito.h>

static int init_rc = 1, fin_rc = 1;

__attribute__((constructor)) static void plugin_up(void)
{
    ito_config_t cfg = {.workers = 2};
    init_rc = ito_init(&cfg); /* under the dynamic loader's lock, which dlopen holds */
}

__attribute__((destructor)) static void plugin_down(void)
{
    if (init_rc == ITO_OK) fin_rc = ito_finalize();
}

int plugin_init_rc(void) { return init_rc; }

static void *square(void *arg)
{
    long x = (long)arg;
    ito_yield();
    return (void *)(x * x);
}

/* x*x computed by a ULT on the runtime the constructor started; negative on an error */
long plugin_square(long x)
{
    ito_thread_t t;
    void *r = NULL;
    if (ito_create(&t, square, (void *)x, NULL) != ITO_OK) return -1;
    if (ito_join(t, &r) != ITO_OK) return -2;
    return (long)r;
}
