/* test_ult_frame_chain: the frame-pointer chain of a ULT ends inside its own stack with a
 * null frame pointer (trampoline_x86_64_sysv_elf_gas.S: "the outermost frame"), so that
 * frame-pointer unwinders (perf, profilers, a crash handler's backtrace) stop at the ULT's
 * entry instead of walking into whatever context ran before it on the worker (the
 * scheduler's stack or another ULT's). Checked in fresh ULTs (first run, on workers 0 and
 * 1) and after they have been switched out and back (yield, block). Built with frame
 * pointers kept. */
#include <stdint.h>

#include "ito/ito.h"
#include "ito_test.h"

#define STACK (64 * 1024)

static int chain_ok(void)
{
    uintptr_t here = (uintptr_t)__builtin_frame_address(0);
    uintptr_t lo = here, hi = here + STACK; /* the whole chain lies above us, within the stack */
    uintptr_t *fp = (uintptr_t *)here;
    for (int depth = 0; depth < 256; depth++) {
        uintptr_t next = fp[0];
        if (next == 0) return 1; /* the outermost frame */
        if (next <= (uintptr_t)fp || next < lo || next >= hi) {
            fprintf(stderr, "frame %d: next frame pointer %#lx outside [%#lx, %#lx)\n", depth,
                    (unsigned long)next, (unsigned long)lo, (unsigned long)hi);
            return 0;
        }
        fp = (uintptr_t *)next;
    }
    fprintf(stderr, "no end of the chain within 256 frames\n");
    return 0;
}

static __attribute__((noinline)) int deeper(int n) { return n ? deeper(n - 1) + 0 * (int)chain_ok() : chain_ok(); }

static ito_mutex_t m;

static void *body(void *arg)
{
    (void)arg;
    int ok = chain_ok();
    CHECK(ok);
    CHECK(deeper(5));
    ito_yield();
    CHECK(chain_ok());
    CHECK_OK(ito_mutex_lock(&m)); /* blocks while main holds it */
    CHECK_OK(ito_mutex_unlock(&m));
    CHECK(chain_ok());
    return NULL;
}

int main(void)
{
    ito_config_t cfg = {0};
    cfg.workers = 2;
    CHECK_OK(ito_init(&cfg));
    CHECK_OK(ito_mutex_init(&m));
    ito_thread_t ts[8];
    CHECK_OK(ito_mutex_lock(&m));
    for (int i = 0; i < 8; i++) {
        ito_attr_t a;
        ito_attr_init(&a);
        a.worker = i % 2;
        a.stack_size = STACK;
        CHECK_OK(ito_create(&ts[i], body, NULL, &a));
    }
    for (int i = 0; i < 20; i++) ito_yield();
    CHECK_OK(ito_mutex_unlock(&m));
    for (int i = 0; i < 8; i++) CHECK_OK(ito_join(ts[i], NULL));
    CHECK_OK(ito_mutex_destroy(&m));
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
