// ThreadAddr.h: thread-specific addresses taken anew after every point where a ULT may
// have moved to another kernel thread.
//
// A ULT may resume on another worker after a yield point or after any call (the callee may
// yield, block or be preempted at one of its own points), and a worker is a kernel thread
// with its own TLS block and its own errno. To LLVM, though, the thread never changes
// inside a function: llvm.threadlocal.address is memory(none), and glibc declares
// __errno_location const, so the optimiser computes such an address once and keeps it in a
// register across calls and loops (found by a probe: `errno = 0; strtol(...); ... if (errno)`
// in a loop with points called __errno_location once before the loop; a -fPIC
// thread_local counter's __tls_get_addr was hoisted out of a loop with points; after the
// ULT moved, both read and wrote the old worker's variables, which other ULTs there use).
// The pass runs last in the pipeline, after that caching; so, in every function it
// instruments, each use of such an address, or of an address computed from one (a
// getelementptr on it, a pointer cast, its conversion to an integer: a field of a
// thread_local struct, C++'s dynamically initialised thread_local reached through its
// wrapper, `(uintptr_t)&tv` as a key), is given a fresh copy of the whole
// computation placed just before the use (for a phi: before the incoming block's
// terminator), unless all of it is in the use's block with no call between its first step
// and the use. Uses of one block with no call between them share one copy. A copy costs nothing
// for initial- and local-exec TLS when it is a load's or store's pointer (the address folds
// into %fs-relative addressing), one call for errno, as code without the caching would. A
// copy whose address is a value (passed, compared, stored, indexed, as an integer), and
// every copy in PIC code that is not a PIE (__tls_get_addr), is instead a call of a small
// never-inlined helper per variable: the X86 back end takes the thread pointer as
// invariant and computes such an address once per block for all its copies, which undid
// the retake (found by an outside tester, 2026-12-05: `use(&tl); hop(); use(&tl);`).
// The const glibc functions that return such an address: __errno_location, __h_errno_location
// (h_errno) and __res_state (the resolver state, `_res`; it was missing: after a move a ULT
// used the old worker's _res, found by outside tester h63d, 2026-12-06, compiler.tlsmove).
// clang's __builtin_thread_pointer() (llvm.thread.pointer, memory(none)) is one too: it was
// computed once for a loop (same tester; rseq code reaches its area through it); its
// retaken copies are always calls of __ito_thread_pointer (the back end shares %fs:0 reads).
// Functions the pass does not instrument because they call a returns_twice function other
// than setjmp (vfork, getcontext) or are ito_noyield get the retake too: their callees may
// switch.
// Local-dynamic TLS (a variable of a PIC module that is not a PIE: a shared library's
// static __thread) is reached through the module's TLS block, whose address the X86 back
// end computes once per function for all such accesses (its local-dynamic TLS clean-up,
// after this pass); so in a function with two or more, each access is a call of a small
// never-inlined helper per variable that makes the access alone (one call per use).
//
// Not covered: an address the program itself keeps across a call (`int *p = &errno;`
// stored, then used after a yield), which thread.h tells programs not to do; a phi whose
// incoming edge ends in an invoke (the invoke itself may switch).
#ifndef ITO_COMPILER_THREADADDR_H
#define ITO_COMPILER_THREADADDR_H

namespace llvm {
class Function;
class Module;
}

namespace ito {

// Re-takes F's thread-specific addresses at their uses; returns how many uses changed.
unsigned retakeThreadAddresses(llvm::Function &F);

// Thread identity: glibc declares pthread_self (and the C11 thrd_current) const, so
// before this pass runs the optimiser merges two calls with a call between them, and
// folds `pthread_t a = pthread_self(); hop(); if (pthread_self() != a)` to false: a ULT
// that moved to another worker in hop() kept the old kernel thread's id (found by an
// outside tester, 2026-12-04: 4,395 stale ids in 9,600 rounds at -O2). A retake at the
// end of the pipeline cannot bring the folded comparison back, so this runs first, at
// the start of the pipeline (before any CSE): the declarations and their calls read
// inaccessible memory instead of none, so that any call in between, which may write it
// (switch), keeps two calls apart. pthread_self and thrd_current are said to write that
// memory too: a loop with no call in it computed them once before the loop, and the
// yield points this pass later puts into the loop let a ULT move there and keep
// comparing the old worker's id (h63d's F4, found by an outside tester, 2026-12-06;
// compiler.tlsmove's self_loop): so every call stays where the program wrote it (two
// calls with nothing between no longer merge; pthread_self is a load behind a call).
// glibc's __ctype_b_loc, __ctype_tolower_loc and __ctype_toupper_loc (isalpha, tolower,
// toupper), const too, return the address of a thread's slot (uselocale): they only read,
// so calls with no call between still merge and a call-free loop of isalpha keeps one
// look-up; after a move inside such a loop it reads the old worker's slot, which holds
// the same tables (the process's locale; per-thread locales do not follow ULTs anyway).
// __builtin_thread_pointer (llvm.thread.pointer, an intrinsic) is a thread address of
// retakeThreadAddresses instead. Returns whether anything changed.
bool unconstThreadIdentity(llvm::Module &M);

} // namespace ito

#endif
