/* sqlharness: the sqlite3 shell (Debian's sqlite3 source, built by ito-cc) inside a ULT.
 *
 *   sqlharness DB [shell args...] < script.sql
 *   (env: SQLH_SPINNERS, SQLH_QUANTUM_US, SQLH_SIGNAL=1: signal mode instead of FLAG)
 *
 * Starts ito with 2 workers, turns on FLAG-mode preemption (the runtime's timer sets
 * ito_coop_flag every SQLH_QUANTUM_US, default 100 us; 0: no timer), creates
 * SQLH_SPINNERS (default 4) co-operative spinner ULTs, built by ito-cc like the shell, and
 * runs the shell's main (renamed sqlite_shell_main by -Dmain=) in one more ULT. The
 * spinners only switch at the checks ito-cc compiled in, so the shell shares its worker
 * only through those: its output must equal the plain build's. Prints the switches and
 * the spinners' rounds on stderr. The shell is the only user of sqlite in the process
 * (sqlite is built with SQLITE_THREADSAFE=0). */
#define _GNU_SOURCE
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "ito/ito.h"

int sqlite_shell_main(int argc, char **argv);

#define MAX_SPINNERS 16

static int shell_argc;
static char **shell_argv;
static _Atomic int stop;
static _Atomic unsigned long rounds[MAX_SPINNERS];

static void *shell_ult(void *arg)
{
    (void)arg;
    intptr_t rc = sqlite_shell_main(shell_argc, shell_argv);
    atomic_store(&stop, 1);
    return (void *)rc;
}

static void *spinner(void *arg)
{
    _Atomic unsigned long *r = arg;
    while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
        atomic_fetch_add_explicit(r, 1, memory_order_relaxed);
        for (volatile int k = 0; k < 1000; k++) {
        }
    }
    return NULL;
}

static long env_long(const char *name, long dflt, long lo, long hi)
{
    const char *s = getenv(name);
    if (!s) return dflt;
    char *end;
    long v = strtol(s, &end, 10);
    if (*s == 0 || *end != 0 || v < lo || v > hi) {
        fprintf(stderr, "sqlharness: %s must be %ld..%ld\n", name, lo, hi);
        exit(2);
    }
    return v;
}

int main(int argc, char **argv)
{
    int nspin = (int)env_long("SQLH_SPINNERS", 4, 0, MAX_SPINNERS);
    long quantum = env_long("SQLH_QUANTUM_US", 100, 0, 1000000);
    int signal_mode = (int)env_long("SQLH_SIGNAL", 0, 0, 1);
    shell_argc = argc;
    shell_argv = argv;
    ito_config_t cfg = {.workers = 2};
    int rc = ito_init(&cfg);
    if (rc != ITO_OK) {
        fprintf(stderr, "sqlharness: ito_init: %s\n", ito_strerror(rc));
        return 2;
    }
    if (quantum > 0) {
        ito_preempt_config_t pc = {.quantum_us = (unsigned)quantum,
                                   .mode = signal_mode ? ITO_PREEMPT_SIGNAL : ITO_PREEMPT_FLAG};
        if ((rc = ito_preempt_enable(&pc)) != ITO_OK) {
            fprintf(stderr, "sqlharness: ito_preempt_enable: %s\n", ito_strerror(rc));
            return 2;
        }
    }
    ito_thread_t shell, spin[MAX_SPINNERS];
    for (int i = 0; i < nspin; i++)
        if (ito_create(&spin[i], spinner, &rounds[i], NULL) != ITO_OK) return 2;
    if (ito_create(&shell, shell_ult, NULL, NULL) != ITO_OK) return 2;
    void *ret = NULL;
    ito_join(shell, &ret);
    for (int i = 0; i < nspin; i++) ito_join(spin[i], NULL);
    ito_stats_t st;
    ito_stats(&st);
    fprintf(stderr, "switches %llu\nspinner rounds", (unsigned long long)st.switches);
    for (int i = 0; i < nspin; i++) fprintf(stderr, " %lu", atomic_load(&rounds[i]));
    fprintf(stderr, "\n");
    if (quantum > 0) ito_preempt_disable();
    ito_finalize();
    return (int)(intptr_t)ret;
}
