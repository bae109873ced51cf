/**
 * @file
 * @brief Timer preemption of ULTs, gang scheduling of thread groups, and
 * preemption-safe regions (after Jung, Hyun and Lee, a preemption-safe policy for
 * blocked programs).
 *
 * Preemption: each worker has a timer (quantum default 10 ms). When it expires, the
 * running ULT is switched out with the full-save switch, in the signal handler, if it
 * is at a safe point; otherwise the switch is deferred to a later tick. Safe means the
 * interrupted instruction is in the program's own code, or in the kernel's vDSO (the
 * clock) when the program called it, directly (time, gettimeofday) or through libc's
 * clock_gettime or std::chrono's steady_clock::now and system_clock::now (a clock read
 * inside libc or another library, such as syslog's under its lock, is theirs; so are those
 * of a library loaded after ito_preempt_enable): never inside libito, libc
 * (malloc, printf, stdio locks) or any other shared library, never in the scheduler
 * context or a ZWT, and never inside a signal handler of the program (told by the
 * interrupted context blocking a signal that ito_preempt_enable's caller did not, or, when
 * the caller is a foreign thread, that the workers did not at their start: the
 * kernel blocks a handler's own signal while it runs, or by the interrupted code running
 * on the thread's alternate signal stack (SA_ONSTACK); a handler installed with
 * SA_NODEFER, an empty sa_mask and no SA_ONSTACK is not told apart; a ULT that blocks a signal itself
 * is not switched by the timer until it unblocks it, compiled yield points still switch
 * it unless the program has a handler for that signal: they do not switch inside a
 * handler either, told the same way from the inside, coop.h). Code of the program that
 * libito calls (an allocator the program defines, a FILE's cookie functions, a ZWT's
 * code) is the program's code too, except while libito called it holding a lock of its
 * own (its allocations, its clock reads in the vDSO):
 * no switch there; the program's own locks held across a switch are its own concern,
 * as everywhere. This needs libito as a shared library (the `ito::ito` target,
 * `pkg-config --libs ito`): with libito linked statically into the executable its code
 * cannot be told apart, and ito_preempt_enable returns ITO_ENOSYS (as it does in ASan and
 * TSan builds, whose runtimes make the handler's switch unsafe). A preempted ULT
 * resumes on the same worker. Code that never has its quantum expire pays nothing. An
 * idle worker asleep takes no ticks (its timer's signal is held until it wakes; not with
 * gang scheduling). A tick costs the interrupt and the signal: on the 2-vCPU VM this was
 * measured on, about 35 us each (bench/tick_cost: a 100 us quantum slowed a plain loop by 40-55 %,
 * a 1 ms quantum by 4 %), so quanta below 1 ms are for experiments, not defaults.
 *
 * Preemption-safe regions: ito_psafe_begin()/ito_psafe_end() are plain stores to the
 * running ULT's own state (no system call; a clock read when a quantum ended just before
 * the region began). A quantum that expires inside a region is
 * delayed and the delay recorded; ito_psafe_end() then switches at once, and the
 * ULT's group is charged the extra time it used (with gang scheduling it sits that long
 * out of its turns, the paper's compensation; without gang scheduling there are no turns:
 * the time is counted in the group's delay_ns, and nothing is sat out, then or later). Past max_delay_quanta quanta the ULT is preempted anyway (a forced,
 * involuntary preemption, charged the same way); it resumes still inside its region.
 * The bound is CPU time of the worker's kernel thread since the first delayed tick, not
 * wall time: while the OS has the thread descheduled (or it sleeps in the kernel) the
 * region does not run and the bound does not advance. Each tick counts at most one
 * quantum, so a jump of the thread's clock without ticks (a virtual CPU the hypervisor
 * preempted, a long stay in the kernel) counts as one: forcing takes at least
 * max_delay_quanta ticks inside the region. A tick that finds the ULT in a
 * system call or just back from one, when the thread blocked in the kernel since the
 * previous tick (e.g. waiting for the pthread mutex the region is about to hold), starts
 * the count again: the bound is on the CPU time the region ran since it last waited in
 * the kernel (a call that did not block, such as a read of the thread's CPU clock at whose
 * return the OS descheduled the thread, is no wait and does not start it again), and the kernel work of a contended wait (the
 * ticks' handling, wake-ups that find the lock taken again) does not use it up.
 * Regions hold off both modes: in ITO_PREEMPT_FLAG mode a tick inside a region
 * leaves ito_coop_flag clear (a flag set just before the region began is taken back),
 * so compiled yield points inside do not switch until the region ends or the bound is
 * reached.
 *
 * What the tick costs a ULT: the tick is a signal (SIGURG), and its handler runs on the
 * interrupted ULT's stack, with the kernel's signal frame (the FPU/vector state: ~1.5 KB
 * with AVX, ~3.4 KB with AVX-512) and the handler's own frames, about 4 KiB in all: keep
 * that free, e.g. stacks of 16 KiB or more with signal preemption (a signal whose frame
 * does not fit ends the process with "ito: fatal: stack overflow in ULT ...: a signal
 * arrived with less than ... bytes"). The switch out of the tick saves the vector state
 * the process may use on the ULT's stack too (~1-3 KB). AMX tile data counts only for a
 * process that asked for it (ARCH_REQ_XCOMP_PERM) before ito_init: about 8 KiB more per
 * tick, so give such ULTs 32 KiB or more; a permission asked after ito_init is not seen,
 * and tile state is then not kept across a preemptive switch. The handler is installed with SA_RESTART, so
 * system calls that restart resume; those that the kernel never restarts after a handler
 * (poll, select, epoll_wait, nanosleep with some clocks, sigtimedwait, ...; see signal(7))
 * fail with EINTR, and a blocking read or write to a pipe or socket may return a short
 * count: a program that calls them directly from ULTs under preemption must retry, as
 * any program with signal handlers must. ito's wrappers (syscall.h) park the ULT instead
 * of blocking the kernel thread, and ito_poll retries the look it takes itself.
 * Sleeps end early: the tick comes every quantum of wall time, also while the worker's
 * thread sleeps in the kernel, so usleep, nanosleep and sleep called from a ULT return
 * after at most a quantum. A library that sleeps and retries against a budget that counts
 * its sleeps, not the clock, gives up that much sooner: SQLite's busy timeout (2,000 ms)
 * gave up after 3-8 ms at a 100 us quantum (outside tester h70b). Give such a library
 * ito_sleep_ns (time.h), which parks the ULT instead of holding its worker for the sleep
 * (SQLite: a VFS whose xSleep calls it, registered as the default).
 *
 * Kernel locks: a ULT switched out while it holds a lock that blocks the kernel thread
 * (a pthread mutex, rwlock or spinlock, std::mutex, a lock of outside code built with
 * ito-cc) deadlocks the worker when the next ULT there takes the same lock. With
 * preemption on, put every such critical section inside a region (ito_psafe_begin before
 * the lock, ito_psafe_end after the unlock) and keep it shorter than max_delay_quanta
 * quanta of running; or use ito's own objects (sync.h), which park the ULT instead.
 * Some such locks are hidden, and count too (known limit, 2026-12-05): while the
 * constructor of a C++ function-local `static` runs, the compiler's guard is held for the
 * kernel thread (a second ULT there that reaches the same static gets
 * __gnu_cxx::recursive_init_error: std::terminate); while a pthread_once or call_once
 * routine runs, a second caller blocks the kernel thread (the worker hangs: ito-cc puts
 * no yield point in a routine passed to pthread_once or call_once in the same translation
 * unit, nor in what it calls there, compiler/README.md; others count); libc also
 * holds locks while it calls the program back (printf handlers, fopencookie functions,
 * dl_iterate_phdr callbacks). A tick may switch inside such code, since it is the
 * program's own. Run such initialisations before ito_preempt_enable, or inside a region
 * shorter than the bound; or use ito_once (sync.h), which parks the second caller.
 * On a virtual machine, leave the bound room: a guest kernel may charge a thread CPU time
 * for time in which its virtual CPU did not run it (measured on a KVM/Firecracker guest:
 * a 3 us critical section charged up to 375 us, several ticks in a row charged 40-130 us
 * each), so at the smallest quantum (100 us) the default bound of 4 quanta forced holders
 * of a 3 us section out about once in 40 runs of a contended test; 40 quanta did not.
 * At the default quantum (10 ms) the default bound is 40 ms.
 *
 * Groups ("programs"): with gang scheduling on, in each time slice only the ULTs of one
 * group run, on all workers at once; groups take turns round-robin; ULTs in no group
 * always run. A region of the running group extends the turn (up to max_delay_quanta
 * quanta of wall time). A ULT inside a region when its group's turn ends keeps its worker
 * until ito_psafe_end (within the same per-ULT bound as without groups), so a kernel lock
 * it holds is released before it is parked; ito_psafe_begin of a ULT whose group's turn is
 * over waits for the group's next turn. A group runs on the workers its members are on:
 * a ULT switched out by a tick resumes on the same worker (above), so ULTs that never
 * yield stay where they first ran, and a worker with none of the running group's ULTs
 * idles through the turn (2 workers, 2 groups of 2 unbound spinners: one group's
 * spinners both stayed on worker 0 and it got half the CPU of the other; found by an
 * outside tester, 2026-12-05). To spread a group over the workers, bind its members one
 * per worker (ito_attr_t.worker). A group whose members are all blocked still takes its
 * turns; the workers idle through them. Turns advance on worker 0's ticks: a worker whose
 * kernel thread the OS runs in slices of its own (CPUs shared with other processes) can
 * stay in step with the rotation, and its members of some groups then get nothing for
 * hundreds of milliseconds while worker 0's share evenly (3 groups of 2 spinners bound one
 * per worker, 2 workers, load 12-20: 0.5 s windows with 0 for two groups on worker 1;
 * outside tester h61c, 2026-12-05). Gang scheduling is fair over time on CPUs it has to
 * itself; not within short windows on CPUs shared with other load.
 */
#ifndef ITO_PREEMPT_H
#define ITO_PREEMPT_H

#include <stdint.h>
#include "error.h"
#include "thread.h"

#ifdef __cplusplus
extern "C" {
#endif
#pragma GCC visibility push(default)

/** How a quantum's end switches a ULT (ito_preempt_config_t.mode). */
enum ito_preempt_mode {
    ITO_PREEMPT_SIGNAL = 0, /**< the timer's signal handler switches the ULT (full save) */
    ITO_PREEMPT_FLAG = 1,   /**< the timer only sets ito_coop_flag: compiled yield points switch */
};

/** Preemption settings (ito_preempt_enable); zero fields take their defaults. */
typedef struct ito_preempt_config {
    unsigned quantum_us;       /**< 0: 10,000 (10 ms); 100 .. 10,000,000 */
    int mode;                  /**< ITO_PREEMPT_SIGNAL (default) or ITO_PREEMPT_FLAG */
    unsigned max_delay_quanta; /**< bound of a delayed switch, in quanta of CPU time inside the region (a gang turn's: of wall time); 0: 4; at most 1000 */
    int gang;                  /**< 1: gang-schedule groups; 0: not; any other value is ITO_EINVAL */
} ito_preempt_config_t;

/**
 * @brief Starts preemption on every worker (a per-worker timer). cfg NULL: the defaults.
 * The ticks are SIGURG aimed at each worker's kernel thread: while preemption is on, ito's
 * handler replaces the program's (ito_preempt_disable and ito_finalize put the program's
 * back), so a program's own SIGURG (socket out-of-band data) does not reach its handler
 * meanwhile. A SIGURG handler the program installs while preemption is on replaces ito's:
 * the ticks then go to it and switch nothing (ito_preempt_stats counts no more ticks), and
 * ito_preempt_disable and ito_finalize keep it. SIGURG is open in the workers whatever
 * mask ito_init's caller had (ito_init opens it, ito_finalize closes it again if it was
 * blocked): a program that blocks every
 * signal before ito_init is still preempted. A ULT that blocks SIGURG itself (its mask
 * is its worker's) stops the ticks on that worker until it opens it again. Calls from several
 * threads at once are serialized: one succeeds, the others get ITO_ESTATE.
 * @return ITO_OK; ITO_ESTATE if the runtime is not running or preemption is on already;
 * ITO_EINVAL for a bad configuration; ITO_ENOSYS for ITO_PREEMPT_SIGNAL when libito is
 * linked statically or under ASan/TSan (use ITO_PREEMPT_FLAG there); ITO_ENOMEM;
 * ITO_EIO when a timer or the signal handler cannot be set up; ITO_ENOTULT from a ZWT.
 * @contexts a ULT or a foreign thread while the runtime runs; not a ZWT, not a signal handler.
 */
int ito_preempt_enable(const ito_preempt_config_t *cfg);
/**
 * @brief Stops preemption (the counters are kept for ito_preempt_stats).
 * @return ITO_OK; ITO_ESTATE if it is not on; ITO_ENOTULT from a ZWT.
 * @contexts a ULT or a foreign thread; not a ZWT, not a signal handler.
 */
int ito_preempt_disable(void);

/**
 * @brief Enters a preemption-safe region (nestable): a plain store to the ULT's own state
 * (see the file comment for the rare clock read). With gang scheduling, a ULT of a group
 * whose turn is over first waits (parked) for its group's next turn.
 * @return ITO_OK; ITO_ENOTULT outside a ULT.
 * @contexts ULT only.
 */
int ito_psafe_begin(void);
/**
 * @brief Leaves a preemption-safe region; at the outermost end a delayed switch happens
 * now and the ULT's group is charged the time it used past its quantum.
 * @return ITO_OK; ITO_ESTATE without a matching begin; ITO_ENOTULT outside a ULT.
 * @contexts ULT only.
 */
int ito_psafe_end(void);

/** A group of ULTs gang-scheduled together (a "program" of the paper). */
typedef struct ito_group ito_group_t;
/**
 * @brief Creates an empty group.
 * @return ITO_OK; ITO_EINVAL if out is NULL; ITO_ESTATE if the runtime is not running; ITO_ENOMEM.
 * @contexts any thread while the runtime runs; not a signal handler.
 */
int ito_group_create(ito_group_t **out);
/**
 * @brief Destroys an empty group. A group handle is checked on every use (a generation
 * tag): a destroyed, forged or earlier runtime's group is ITO_EINVAL, never a read of
 * freed memory; every group ends at ito_finalize.
 * @return ITO_OK; ITO_EINVAL if g is NULL or not a live group (destroyed already, stale,
 * forged); ITO_EBUSY while it has ULTs; ITO_ESTATE if the runtime is not running.
 * @contexts any thread; not a signal handler.
 */
int ito_group_destroy(ito_group_t *g);
/**
 * @brief Puts t into g (it leaves g when it ends). One group per ULT. An add racing t's
 * end is ordered with it (one atomic step on t's state): either t leaves g at its end, or
 * the add says ITO_ESTATE (t has finished) or ITO_EJOINED (the handle is stale: a handle of
 * an ended thread whose descriptor a new thread uses now never adds that new thread). A
 * ULT created detached (ITO_ATTR_DETACHED) may only add itself, as its end takes no such
 * step: to add one from another thread, create it joinable, add it, then ito_detach it.
 * While a joiner runs t in place (an ito_join of a ULT that had not started may run it on
 * the spot), only t itself may add it.
 * @return ITO_OK; ITO_EINVAL if g or t is NULL or g is not a live group; ITO_EJOINED for a
 * stale thread handle; ITO_ESTATE if the runtime is not running or t has finished;
 * ITO_EBUSY if t is in a group already, if its joiner is running it in place (from another
 * thread), or if t, created detached by ito_create_many, adds itself; ITO_EPERM if t was
 * created detached and the caller is not t.
 * @contexts any thread; not a signal handler.
 */
int ito_group_add(ito_group_t *g, ito_thread_t t);

/** Preemption counters (ito_preempt_stats, ito_group_stats). */
typedef struct ito_preempt_stats_s {
    uint64_t ticks;       /**< quanta that ended on a worker that was not asleep */
    uint64_t preemptions; /**< ULTs switched out by a quantum's end (FLAG mode: quanta whose flag a compiled yield point took, counted at the next tick; a yield of code built with --ito-check=budget clears the flag too, so beside such code nearly every tick counts. SIGNAL mode: switches made in the handler only; a tick deferred outside the program's own code, whose compiled yield points then switch, counts as deferred) */
    uint64_t deferred;    /**< switches put off: not at a safe point */
    uint64_t delayed;     /**< switches delayed by preemption-safe regions */
    uint64_t delay_ns;    /**< the time they were delayed, in total */
    uint64_t forced;      /**< delays that hit the bound: preempted inside the region */
} ito_preempt_stats_t;
/**
 * @brief The whole runtime's counters (also after ito_preempt_disable). They count from a
 * runtime's first ito_preempt_enable: after ito_finalize, and in the next runtime until its
 * first ito_preempt_enable, they are the last runtime's totals (unlike ito_stats,
 * ito_wsc_stats and ito_zwt_stats, which start at 0 at ito_init).
 * @return ITO_OK; ITO_EINVAL if out is NULL.
 * @contexts any thread; not a signal handler.
 */
int ito_preempt_stats(ito_preempt_stats_t *out);
/**
 * @brief One group's counters (its ticks field is 0). With gang scheduling on they also
 * count the group's turns, which the runtime's counters (ito_preempt_stats: switches per
 * ULT) do not: a turn extended by a region of the group adds one to delayed and the
 * extension to delay_ns, and a turn that its bound ended adds one to forced (the region's
 * ULT keeps its worker then, it is not preempted inside the region). So with gangs a
 * group's counters may exceed the runtime's, and a region that extended the turn and then
 * delayed its ULT's switch once the turn was over counts twice in delayed.
 * @return ITO_OK; ITO_EINVAL if g or out is NULL or g is not a live group; ITO_ESTATE if
 * the runtime is not running.
 * @contexts any thread; not a signal handler.
 */
int ito_group_stats(ito_group_t *g, ito_preempt_stats_t *out);

#pragma GCC visibility pop
#ifdef __cplusplus
}
#endif
#endif
