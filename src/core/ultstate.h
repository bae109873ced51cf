/* ultstate.h: the state of a kernel thread that belongs to the ULT running on it: errno,
 * and the C++ exception globals. A switch saves the outgoing ULT's and loads the incoming
 * ULT's (itoi_state_switch); a new ULT starts with errno 0 and no exception.
 *
 * errno. C code sees errno as its thread's, and the thread is the ULT: `errno = 0; x =
 * strtol(...); if (errno) ...` must work although a compiler-inserted yield (ito-cc, FLAG
 * preemption) may switch between the call and the test, or a ULT may yield or block there
 * and resume on another worker. glibc keeps errno per kernel thread, so without help the
 * value was lost: another ULT on the same worker overwrote it, or the ULT read the errno
 * of the kernel thread it moved to (tests/test_errno_ult.c). So errno travels with the ULT:
 * each worker finds its kernel thread's errno once (w->errnop, when it starts), and a
 * switch copies the value out into the outgoing ULT (itoi_ult_t.err) and the incoming
 * ULT's in; the scheduler context and a join's inline child start from 0. (The address is
 * a separate problem: code that computed &errno before a switch and uses it after uses the
 * old kernel thread's. ito's headers redefine errno to look it up at every use
 * (syscall.h), and ito-cc takes the address anew after every call
 * (compiler/plugin/ThreadAddr.h).) Cost: two loads and two stores a switch, beside the C++
 * globals' load and branch (callgrind: 6 instructions a yield, 14 a create+join; AMD EPYC,
 * 41 interleaved rounds: +0.13 ns a yield and +1.2 ns a create+join at the minimum).
 *
 * C++ exceptions.
 *
 * The C++ ABI (libstdc++'s libsupc++, libc++abi) keeps each kernel thread's exception
 * state in thread-local storage, reached through __cxa_get_globals(): the stack of
 * exceptions being handled (a catch block pushes its exception, leaving the block pops
 * it; `throw;` and std::current_exception read the top) and the count of exceptions in
 * flight (std::uncaught_exceptions). ULTs share kernel threads, so without help a ULT that
 * switches out inside a catch block (a yield, a blocking call, a compiler-inserted yield,
 * a preemption) leaves its exception on the kernel thread's stack, where the next ULT's
 * catch pushes above it: the first ULT's `throw;` then rethrows the other ULT's exception,
 * and a ULT that resumes on another worker finds a stack that is not its own. (Found by
 * compiler/tests/realrt/realrt_cxx.cpp; tests/cxx/eh.cpp, the test cxx_eh, pins it.)
 *
 * The rule: while a ULT runs, its kernel thread's exception globals are the ULT's own. A
 * switch saves them into the outgoing ULT (itoi_ult_t.eh) and loads the incoming ULT's;
 * the scheduler context runs with empty globals (ZWTs run to completion, so whatever they
 * throw and catch is balanced before they return); a new ULT starts with empty ones
 * (itoi_ult_entry), also when a join runs it inline on its joiner's kernel thread (thread.c,
 * run_inline: the joiner's are saved first and given back after). Each worker finds its
 * kernel thread's globals once, when it starts (w->eh); a process without a C++ runtime has
 * no __cxa_get_globals (a weak reference, else looked up with dlsym: a C program that loaded
 * its C++ code with dlopen before ito_init), w->eh stays NULL and a switch pays one load and
 * a branch. Known limit: a C++ runtime that first arrives with a dlopen after ito_init (a C
 * program without -lstdc++ loading a C++ plugin) is not seen, and its ULTs share their
 * kernel thread's exception state: link such a program with -lstdc++, or load the library
 * before ito_init. Otherwise it copies two words out and two in (callgrind: 3 and 8 instructions a
 * yield; a C++ program's yield, 3 interleaved sets of 7-15 runs on AMD EPYC: +0.7 to +0.8
 * ns at the minimum in two, none in the third).
 *
 * The globals are two words on x86-64 in both ABIs (a pointer and an unsigned count);
 * the padding after the count is copied too, harmlessly. */
#ifndef ITOI_ULTSTATE_H
#define ITOI_ULTSTATE_H

#include <errno.h>
#include <string.h>

#include "itoi.h"

/* The bytes kept per ULT (itoi_ult_t.eh). */
#define ITOI_EH_SIZE sizeof(((itoi_ult_t *)0)->eh)

/* This kernel thread's exception globals, or NULL without a C++ runtime. */
void *itoi_eh_globals(void);
/* Finds the C++ runtime's __cxa_get_globals for itoi_eh_globals: on ito_init's caller,
 * before any worker starts (it may take the dynamic loader's lock; runtime.c). */
void itoi_eh_resolve(void);

/* A switch on w from `from` to `to` (NULL: the scheduler context), made before the
 * context switch itself (the kernel thread is the same on both sides). */
static inline void itoi_state_switch(itoi_worker_t *w, itoi_ult_t *from, itoi_ult_t *to)
{
    int *e = w->errnop;
    if (from) from->err = *e;
    *e = to ? to->err : 0;
    void *g = w->eh;
    if (ITOI_LIKELY(g == NULL)) return;
    if (from) memcpy(from->eh, g, ITOI_EH_SIZE);
    if (to) memcpy(g, to->eh, ITOI_EH_SIZE);
    else memset(g, 0, ITOI_EH_SIZE);
}

/* A ULT that starts running: empty exception globals. (Its errno, 0 from
 * itoi_ult_init_state, was loaded by the switch that started it.) */
static inline void itoi_state_fresh(itoi_worker_t *w)
{
    if (ITOI_UNLIKELY(w->eh != NULL)) memset(w->eh, 0, ITOI_EH_SIZE);
}

/* The calling kernel thread serves w from now on: its state's addresses, found once. */
static inline void itoi_state_bind(itoi_worker_t *w)
{
    itoi_tls_worker = w;
    w->eh = itoi_eh_globals();
    w->errnop = &errno;
}

#endif
