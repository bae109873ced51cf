// Safety.h: where a yield point must never go.
//
// Whole functions are skipped when
//  - they carry __attribute__((annotate("ito_noyield"))) (read from llvm.global.annotations);
//  - they belong to the runtime (names beginning ito_, itoi_ or itoa_): a yield inside the
//    scheduler would re-enter it;
//  - they call a returns_twice function other than setjmp/sigsetjmp (vfork, getcontext,
//    savectx, __builtin_setjmp): the child of vfork runs on the parent's stack and thread, a
//    saved context may be switched to from elsewhere; setjmp's callers get points (see
//    isSetjmp in Safety.cpp: until h74b they were skipped too, and an interpreter that
//    catches its exceptions with setjmp in its dispatch function was never preempted);
//  - they are naked, declarations, or available_externally;
//  - they are signal handlers this module registers, or functions they call directly
//    (a yield inside a handler would switch threads with the signal frame on the stack):
//      recognised: a function passed directly to signal/sysv_signal/bsd_signal/__sysv_signal/
//      sigset;
//      a function whose address is stored, or sits in a constant initialiser used, in a
//      function that calls sigaction/__sigaction (the sa_handler idiom).
//      not recognised: handlers registered in another translation unit, handlers reached
//      only through pointers loaded from elsewhere, callees reached indirectly or defined
//      in other translation units. Such functions must be marked ito_noyield by hand
//      (the runtime refuses a due yield while a handler runs, told by the signal mask or
//      the alternate signal stack, src/core/coop.c, but not in a handler installed with
//      SA_NODEFER, an empty mask and no SA_ONSTACK).
//  - they are IFUNC resolvers of this module (__attribute__((ifunc)), target_clones), or
//    functions they call directly: the loader runs them, in a -static program before the
//    thread pointer that the check reads exists;
//  - they are pthread_once/__pthread_once/call_once routines this module passes (found as
//    handlers are), or functions they call directly: while one runs, a second caller of the
//    same once object blocks its kernel thread, so a switch inside it hung the workers;
//  - they are callbacks this module passes to a libc function that calls them with a
//    lock of its own held (dl_iterate_phdr, register_printf_specifier/_function/_type,
//    pthread_atfork, fopencookie's functions: found as handlers are, see Safety.cpp's
//    LockedRegistrars), or functions they call directly: a switch inside one left the
//    loader's lock held by another kernel thread, or let the worker's next ULT into the
//    same stream;
//  - they are called directly while a C++ function-local static's guard may be held
//    (__cxa_guard_acquire ... _release/_abort: the static's initialiser), or functions they
//    call directly: a second ULT reaching the static waited for the first in the guard
//    (aborting with recursive_init_error, or blocking its worker's kernel thread);
// Blocks are skipped when they are EH pads, are unreachable, end in `unreachable`, may
// execute while the function holds a kernel lock it took itself (pthread_mutex_lock ...
// pthread_mutex_unlock, rwlocks, spinlocks, mtx_lock, flockfile, a C++ static's guard), or (unless allowed by
// -ito-yield-allow-va-regions) may execute between a va_start and its va_end.
#ifndef ITO_COMPILER_SAFETY_H
#define ITO_COMPILER_SAFETY_H

#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Module.h"

namespace ito {

class ModuleSafety {
public:
  explicit ModuleSafety(llvm::Module &M);
  // Empty when yields may go into F, else the reason they may not.
  llvm::StringRef whyNot(const llvm::Function &F) const;

private:
  llvm::DenseSet<const llvm::Function *> NoYield, Handlers, Resolvers, OnceInits, LockedCallbacks,
      StaticInits;
};

// Blocks of F that may run while a va_list started by va_start is open.
llvm::DenseSet<const llvm::BasicBlock *> vaOpenBlocks(llvm::Function &F);

// Blocks of F that may run while F holds a kernel lock it took itself (pthread mutex,
// rwlock or spinlock, C11 mtx, stdio's flockfile): a ULT switched out there keeps the lock,
// and the next ULT on that worker (or any worker) that takes it blocks a kernel thread for
// ever (PCRE2's JIT allocator, sljit_malloc_exec, hung 2 runs of 3 built by ito-cc under
// FLAG preemption; found by an outside tester, h67c, 2026-12-06). Callees are not covered.
llvm::DenseSet<const llvm::BasicBlock *> lockOpenBlocks(llvm::Function &F);

// The blocks that get no point: lock regions, and va regions unless AllowVarargRegions.
llvm::DenseSet<const llvm::BasicBlock *> noYieldBlocks(llvm::Function &F,
                                                       bool AllowVarargRegions);

} // namespace ito

#endif
