/* compiled_yield: fair sharing of one worker without writing a single yield, by compiling
 * with ito-cc (clang 19 with ito's yield plugin).
 *
 * The plugin puts a timer-guarded yield point into every loop: a load of ito_coop_flag
 * and a branch that is not taken until the flag is set. Preemption in flag mode
 * (ITO_PREEMPT_FLAG) sets the flag when a ULT's quantum (here 1 ms) ends, and the next
 * yield point switches to another ULT, with only the registers live there saved.
 *
 * One worker runs two ULTs: `spinner` computes in a tight loop that neither yields nor
 * blocks, until `ticker` has counted to TICKS; `ticker` counts and yields. Without the
 * plugin (ito-cc --ito-off) the spinner would never let the ticker run: it gives up after
 * BUDGET iterations and says so.
 *
 *   ito-cc -O2 compiled_yield.c -lito -o compiled_yield
 *   ./compiled_yield       prints "compiled_yield: the ticker ran 20 times while the spinner looped"
 */
#include <stdint.h>
#include <stdio.h>

#include <ito/ito.h>

#define TICKS 20
#define BUDGET 20000000000ull /* about 20 s of spinning: only a build without yields gets there */

static volatile int ticks;

static void *spinner(void *arg)
{
    uint64_t x = (uint64_t)(uintptr_t)arg, i;
    for (i = 0; i < BUDGET && ticks < TICKS; i++) x = x * 6364136223846793005ull + 1442695040888963407ull;
    return (void *)(uintptr_t)(i < BUDGET); /* 1: the ticker finished first */
}

static void *ticker(void *arg)
{
    (void)arg;
    while (ticks < TICKS) {
        ticks++;
        ito_yield(); /* back to the spinner, until its quantum ends again */
    }
    return NULL;
}

int main(void)
{
    ito_config_t cfg = {.workers = 1};
    ito_init(&cfg);
    ito_preempt_config_t pc = {.quantum_us = 1000, .mode = ITO_PREEMPT_FLAG};
    if (ito_preempt_enable(&pc) != ITO_OK) return 1;

    ito_thread_t s, t;
    void *fair;
    ito_create(&s, spinner, (void *)1, NULL);
    ito_create(&t, ticker, NULL, NULL);
    ito_join(s, &fair);
    ito_join(t, NULL);

    ito_preempt_disable();
    ito_finalize();
    if (!fair) {
        printf("compiled_yield: the spinner never let the ticker run (built without the plugin?)\n");
        return 1;
    }
    printf("compiled_yield: the ticker ran %d times while the spinner looped\n", ticks);
    return 0;
}
