/* tlsmove.c: outside code built by ito-cc (the probe of compiler/plugin/ThreadAddr.h).
 * Between two uses of errno and of a thread_local variable it calls hop(), after which the
 * ULT may run on another worker; the addresses it then uses must be those of the kernel
 * thread it runs on now. Without the plugin, clang computes both addresses once before the
 * loop (glibc's __errno_location is const, llvm.threadlocal.address is memory(none)) and
 * keeps them: after a move the ULT wrote the other worker's errno and variable. The values
 * are the harness's business; each stale address counts one in *stale. */
#include <errno.h>

_Thread_local int tls_mark;
_Thread_local struct pair { long a, b; } tls_pair;

void hop(void);         /* tlsmove_main.c: busy work and a yield; the ULT may move */
int *here_errno(void);  /* tlsmove_main.c: the calling kernel thread's errno */
int *here_mark(void);   /* tlsmove_main.c: the calling kernel thread's tls_mark */
long *here_pair_b(void); /* tlsmove_main.c: the calling kernel thread's tls_pair.b */

void probe(int rounds, int *stale, int *lost)
{
    for (int i = 0; i < rounds; i++) {
        errno = i;
        tls_mark = i;
        tls_pair.b = i;
        hop();
        if (&errno != here_errno()) (*stale)++;
        if (&tls_mark != here_mark()) (*stale)++;
        if (&tls_pair.b != here_pair_b()) (*stale)++; /* an address computed from one */
        if (errno != i) (*lost)++; /* errno travels with the ULT (src/core/ultstate.h) */
    }
}
