// Safety.cpp: functions and blocks that never get a yield point (see Safety.h).
#include "Safety.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/ConstantFolding.h"
#include "llvm/Analysis/ValueTracking.h"
#include "llvm/IR/DataLayout.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/GlobalIFunc.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/PatternMatch.h"

using namespace llvm;
using llvm::PatternMatch::m_Zero;
using llvm::PatternMatch::match;

namespace ito {

namespace {

// The function a call reaches directly, also through an alias (C sees a call of an alias
// as a direct call; it stays one at -O0).
const Function *calledFunction(const CallBase &CB) {
  return dyn_cast<Function>(CB.getCalledOperand()->stripPointerCastsAndAliases());
}

// Every Function mentioned by a constant (e.g. a struct sigaction initialiser).
void functionsIn(const Constant *C, DenseSet<const Function *> &Out,
                 DenseSet<const Constant *> &Seen) {
  if (!Seen.insert(C).second)
    return;
  if (const auto *F = dyn_cast<Function>(C)) {
    Out.insert(F);
    return;
  }
  if (const auto *GV = dyn_cast<GlobalVariable>(C)) {
    if (GV->isConstant() && GV->hasInitializer())
      functionsIn(GV->getInitializer(), Out, Seen);
    return;
  }
  for (const Use &U : C->operands())
    if (const auto *K = dyn_cast<Constant>(U.get()))
      functionsIn(K, Out, Seen);
}

// Every Function a handler argument or a stored handler may be: the value itself, both
// arms of a choice (`c ? h : SIG_IGN`: a select, or a phi at -O0), a local variable's
// stored values (`sighandler_t h = f; signal(s, h)` at -O0) and a constant table's
// initial entries. (Until 2026-12-04 only a function passed or stored directly was seen, and
// handlers registered through a choice got checks; found by a tester.)
void functionsFrom(const Value *V, DenseSet<const Function *> &Out, DenseSet<const Value *> &Seen,
                   DenseSet<const Constant *> &CSeen) {
  V = V->stripPointerCastsAndAliases();
  if (!Seen.insert(V).second)
    return;
  if (const auto *S = dyn_cast<SelectInst>(V)) {
    functionsFrom(S->getTrueValue(), Out, Seen, CSeen);
    functionsFrom(S->getFalseValue(), Out, Seen, CSeen);
  } else if (const auto *P = dyn_cast<PHINode>(V)) {
    for (const Value *In : P->incoming_values())
      functionsFrom(In, Out, Seen, CSeen);
  } else if (const auto *L = dyn_cast<LoadInst>(V)) {
    const Value *Obj = getUnderlyingObject(L->getPointerOperand());
    if (const auto *A = dyn_cast<AllocaInst>(Obj)) {
      if (!Seen.insert(A).second) // each variable's stores once: linear in the function
        return;
      for (const User *U : A->users())
        if (const auto *St = dyn_cast<StoreInst>(U))
          if (St->getPointerOperand() == A && St->getValueOperand()->getType()->isPointerTy())
            functionsFrom(St->getValueOperand(), Out, Seen, CSeen);
    } else if (const auto *GV = dyn_cast<GlobalVariable>(Obj)) {
      if (!GV->hasInitializer()) // (at -O0 a table is not yet marked constant)
        return;
      // the loaded field alone when its offset is known (`app.on_int` of a struct that
      // also holds the program's main loop: the whole initializer took that too, found by
      // a reviewer); a table indexed at run time: all its entries
      const DataLayout &DL = GV->getParent()->getDataLayout();
      APInt Off(DL.getIndexTypeSizeInBits(L->getPointerOperand()->getType()), 0);
      const Value *Base = L->getPointerOperand()->stripAndAccumulateConstantOffsets(DL, Off, true);
      if (Base == GV) {
        if (Constant *C = ConstantFoldLoadFromConst(const_cast<Constant *>(GV->getInitializer()), L->getType(), Off, DL))
          functionsIn(C, Out, CSeen);
      } else {
        functionsIn(GV->getInitializer(), Out, CSeen);
      }
    }
  } else if (const auto *C = dyn_cast<Constant>(V)) {
    functionsIn(C, Out, CSeen);
  }
}

bool isSignalRegistrar(StringRef N) {
  return N == "signal" || N == "sysv_signal" || N == "bsd_signal" || N == "__sysv_signal" ||
         N == "sigset";
}

// Adds to Set every function that a member calls directly, transitively.
void closeOverCallees(DenseSet<const Function *> &Set) {
  SmallVector<const Function *, 16> Work(Set.begin(), Set.end());
  while (!Work.empty()) {
    const Function *H = Work.pop_back_val();
    for (const Instruction &I : instructions(*H))
      if (const auto *CB = dyn_cast<CallBase>(&I))
        if (const Function *C = calledFunction(*CB))
          if (!C->isDeclaration() && Set.insert(C).second)
            Work.push_back(C);
  }
}

bool isSigaction(StringRef N) { return N == "sigaction" || N == "__sigaction"; }

// The functions F stores (a pointer stored anywhere) or uses in a constant global's
// initialiser: what a function that calls sigaction (or fopencookie) may register through
// a struct it fills. With Copies, also those of a writable global F copies from
// (`cookie_io_functions_t io = funcs;` at -O0 is a memcpy from @funcs).
void storedFunctions(const Function &F, DenseSet<const Function *> &Out, DenseSet<const Value *> &VSeen,
                     DenseSet<const Constant *> &CSeen, bool Copies) {
  DenseSet<const Constant *> Seen;
  for (const Instruction &I : instructions(F)) {
    if (const auto *MC = dyn_cast<MemTransferInst>(&I); MC && Copies)
      if (const auto *GV = dyn_cast<GlobalVariable>(getUnderlyingObject(MC->getSource())))
        if (GV->hasInitializer())
          functionsIn(GV->getInitializer(), Out, CSeen);
    if (const auto *St = dyn_cast<StoreInst>(&I)) {
      if (St->getValueOperand()->getType()->isPointerTy()) // a handler is a pointer
        functionsFrom(St->getValueOperand(), Out, VSeen, CSeen);
      continue;
    }
    for (const Use &U : I.operands())
      if (const auto *GV = dyn_cast<GlobalVariable>(U.get()->stripPointerCasts()))
        functionsIn(GV, Out, Seen);
  }
}

// pthread_once(&o, init) and C11 call_once(&o, init): while init runs, a second caller
// of the same object blocks its kernel thread in the kernel (a futex), so a ULT switched
// out inside init left every worker that ran another caller blocked for ever (16 ULTs on
// 2 workers calling pthread_once with an instrumented init hung 3 runs of 3; found by an
// outside tester, h65b, 2026-12-06). Such an init gets no points, as a signal handler.
bool isOnceRegistrar(StringRef N) {
  return N == "pthread_once" || N == "__pthread_once" || N == "call_once";
}

// Functions glibc calls back while it holds a lock of its own, and the arguments that are
// such functions: dl_iterate_phdr's callback (the loader's recursive lock, owned by the
// kernel thread), printf's custom conversions (register_printf_specifier/_function's
// handler and arginfo, register_printf_type's va_arg function: vfprintf holds the stream's
// lock around them), pthread_atfork's handlers (fork holds its handler lock around the
// prepare and parent ones; the child's run in the child, where nothing switches). A ULT
// switched out inside one keeps the lock: with dl_iterate_phdr, a ULT that resumed on
// another worker could not release the loader's lock (EPERM, ignored) and every other
// kernel thread that took it blocked for ever (8 ULTs on 2 workers, FLAG preemption every
// 100 us: 6 runs of 9 hung); with a stream's lock (owned by the kernel thread, taken again
// by the same thread without waiting), the next ULT on that worker entered the same stream
// and their output interleaved (237 of 240 lines mixed), and the handler's own fprintf
// after a move blocked its new worker. Found by an outside tester, h78c, 2026-12-08.
// fopencookie's functions (the stream's lock is held while they run) come in a struct:
// see isCookieOpener. Each entry: the registrar's name and a bit per argument.
struct LockedRegistrar {
  StringRef Name;
  unsigned Args;
};
constexpr LockedRegistrar LockedRegistrars[] = {
    {"dl_iterate_phdr", 1u << 0},          {"register_printf_specifier", 1u << 1 | 1u << 2},
    {"register_printf_function", 1u << 1 | 1u << 2}, {"register_printf_type", 1u << 0},
    {"pthread_atfork", 1u << 0 | 1u << 1 | 1u << 2}, {"__register_atfork", 1u << 0 | 1u << 1 | 1u << 2},
};

unsigned lockedCallbackArgs(StringRef N) {
  for (const LockedRegistrar &R : LockedRegistrars)
    if (R.Name == N)
      return R.Args;
  return 0;
}

// fopencookie(cookie, mode, funcs) takes its read, write, seek and close functions in a
// struct passed by value, which the stream calls with its lock held (fwrite, fflush,
// fclose). They are found as sigaction's handlers are: every function stored, or in a
// constant initialiser used, in a function that calls fopencookie, and those of the
// global the struct argument is (also a writable one: `static cookie_io_functions_t f`).
bool isCookieOpener(StringRef N) { return N == "fopencookie" || N == "_IO_fopencookie"; }

// (below, with the kernel locks)
int guardEffect(const CallBase &CB);
DenseSet<const BasicBlock *> openBlocks(const Function &F, int (*Effect)(const CallBase &));

// The functions F calls directly while it may hold a C++ static's guard (guardEffect): the
// initialisers. In F itself those blocks get no point (lockOpenBlocks counts the guard).
void guardedCallees(const Function &F, DenseSet<const Function *> &Out) {
  bool Any = false;
  for (const Instruction &I : instructions(F))
    if (const auto *CB = dyn_cast<CallBase>(&I); CB && guardEffect(*CB) > 0)
      Any = true;
  if (!Any)
    return;
  for (const BasicBlock *B : openBlocks(F, guardEffect))
    for (const Instruction &I : *B)
      if (const auto *CB = dyn_cast<CallBase>(&I))
        if (const Function *C = calledFunction(*CB); C && !C->isDeclaration() && guardEffect(*CB) == 0)
          Out.insert(C);
}

// setjmp and sigsetjmp return the second time through longjmp into a frame that is still
// there, on the ULT's own stack, which does not move when the ULT resumes on another
// worker: a switch at a point of the caller changes nothing longjmp restores (the
// callee-saved registers and the stack pointer the buffer holds, the pointer guard that
// mangles them is the process's), and the caller's thread-specific addresses are taken
// anew after calls as everywhere (ThreadAddr.h). Points there are as safe as in the
// callees, which always had them. Any other returns_twice function keeps its caller
// without points: vfork (the child runs on the parent's stack and thread), getcontext and
// savectx (a context others may switch to), __builtin_setjmp. Skipping every setjmp
// caller left an interpreter whose dispatch loop catches its exceptions with setjmp in
// the same function (mruby's mrb_vm_exec) without a single point: its loops were never
// preempted (found by an outside tester, h74b, 2026-12-07).
bool isSetjmp(StringRef N) {
  return N == "setjmp" || N == "_setjmp" || N == "__setjmp" || N == "sigsetjmp" ||
         N == "__sigsetjmp" || N == "_sigsetjmp";
}

// Whether F calls a returns_twice function other than setjmp and sigsetjmp.
bool callsUnsafeReturnsTwice(const Function &F) {
  for (const Instruction &I : instructions(F))
    if (const auto *CB = dyn_cast<CallBase>(&I); CB && CB->hasFnAttr(Attribute::ReturnsTwice)) {
      const Function *Callee = CB->getCalledFunction();
      if (!Callee || !isSetjmp(Callee->getName()))
        return true;
    }
  return false;
}

} // namespace

ModuleSafety::ModuleSafety(Module &M) {
  // ito_noyield: { ptr @f, ptr @"ito_noyield", ptr @file, i32 line, ptr args } entries.
  if (GlobalVariable *GA = M.getGlobalVariable("llvm.global.annotations")) {
    if (auto *Arr = dyn_cast_or_null<ConstantArray>(GA->getInitializer())) {
      for (const Use &U : Arr->operands()) {
        auto *E = dyn_cast<ConstantStruct>(U.get());
        if (!E || E->getNumOperands() < 2)
          continue;
        auto *F = dyn_cast<Function>(E->getOperand(0)->stripPointerCasts());
        auto *S = dyn_cast<GlobalVariable>(E->getOperand(1)->stripPointerCasts());
        if (!F || !S || !S->hasInitializer())
          continue;
        if (auto *CDA = dyn_cast<ConstantDataArray>(S->getInitializer()))
          if (CDA->isCString() && CDA->getAsCString() == "ito_noyield")
            NoYield.insert(F);
      }
    }
  }

  // Signal handlers registered in this module (and callbacks glibc calls under a lock).
  // Each set has its own record of what was looked at: a value seen for one (a function
  // passed to signal) may still belong to another (the same passed to pthread_atfork).
  DenseSet<const Value *> VSeen, LVSeen;
  DenseSet<const Constant *> CSeen, LCSeen;
  for (Function &F : M) {
    bool CallsSigaction = false, CallsCookieOpener = false;
    for (Instruction &I : instructions(F)) {
      auto *CB = dyn_cast<CallBase>(&I);
      if (!CB)
        continue;
      const Function *Callee = calledFunction(*CB);
      if (!Callee)
        continue;
      if (isSignalRegistrar(Callee->getName()) && CB->arg_size() >= 2)
        functionsFrom(CB->getArgOperand(1), Handlers, VSeen, CSeen);
      if (isOnceRegistrar(Callee->getName()) && CB->arg_size() >= 2)
        functionsFrom(CB->getArgOperand(1), OnceInits, VSeen, CSeen);
      if (unsigned Args = lockedCallbackArgs(Callee->getName()))
        for (unsigned K = 0; K < CB->arg_size() && K < 32; K++)
          if (Args & (1u << K))
            functionsFrom(CB->getArgOperand(K), LockedCallbacks, LVSeen, LCSeen);
      if (isCookieOpener(Callee->getName())) {
        CallsCookieOpener = true;
        if (CB->arg_size() >= 3)
          if (const auto *GV = dyn_cast<GlobalVariable>(getUnderlyingObject(CB->getArgOperand(2))))
            if (GV->hasInitializer())
              functionsIn(GV->getInitializer(), LockedCallbacks, LCSeen);
      }
      if (isSigaction(Callee->getName())) {
        CallsSigaction = true;
        // `static struct sigaction sa = {.sa_handler = h}; sigaction(s, &sa, 0)`: a
        // writable global, which the scan of constants below leaves out (found by a
        // tester, 2026-12-04: h kept its checks at -O0 and -O2). The handler field alone
        // (sa_handler/sa_sigaction, at the offset the argument points to).
        if (CB->arg_size() >= 2) {
          const DataLayout &DL = M.getDataLayout();
          const Value *Act = CB->getArgOperand(1);
          APInt Off(DL.getIndexTypeSizeInBits(Act->getType()), 0);
          const Value *Base = Act->stripAndAccumulateConstantOffsets(DL, Off, true);
          if (const auto *GV = dyn_cast<GlobalVariable>(Base))
            if (GV->hasInitializer())
              if (Constant *C = ConstantFoldLoadFromConst(const_cast<Constant *>(GV->getInitializer()),
                                                          PointerType::getUnqual(M.getContext()), Off, DL))
                functionsIn(C, Handlers, CSeen);
        }
      }
    }
    guardedCallees(F, StaticInits);
    if (CallsSigaction)
      storedFunctions(F, Handlers, VSeen, CSeen, false);
    if (CallsCookieOpener)
      storedFunctions(F, LockedCallbacks, LVSeen, LCSeen, true);
  }
  // ... and what they call directly, transitively.
  closeOverCallees(Handlers);
  closeOverCallees(OnceInits);
  closeOverCallees(LockedCallbacks);
  closeOverCallees(StaticInits);

  // IFUNC resolvers (written with __attribute__((ifunc)), or made by clang for
  // target_clones/target_version): the dynamic loader, or in a -static program the C
  // start-up code before the thread pointer exists, runs them, never a ULT.
  for (const GlobalIFunc &GI : M.ifuncs())
    if (const Function *R = GI.getResolverFunction())
      if (!R->isDeclaration())
        Resolvers.insert(R);
  closeOverCallees(Resolvers);
}

StringRef ModuleSafety::whyNot(const Function &F) const {
  if (F.isDeclaration())
    return "declaration";
  if (F.hasAvailableExternallyLinkage())
    return "available_externally";
  if (F.hasFnAttribute(Attribute::Naked))
    return "naked";
  if (NoYield.contains(&F))
    return "ito_noyield";
  StringRef N = F.getName();
  if (N.starts_with("ito_") || N.starts_with("itoi_") || N.starts_with("itoa_"))
    return "runtime";
  if (F.hasFnAttribute(Attribute::ReturnsTwice) || callsUnsafeReturnsTwice(F))
    return "returns_twice";
  if (Handlers.contains(&F))
    return "signal handler";
  if (Resolvers.contains(&F))
    return "ifunc resolver";
  if (OnceInits.contains(&F))
    return "once routine";
  if (LockedCallbacks.contains(&F))
    return "called under a libc lock";
  if (StaticInits.contains(&F))
    return "static initialiser";
  return "";
}

DenseSet<const BasicBlock *> vaOpenBlocks(Function &F) {
  // Forward reachability from each va_start (or va_copy): a block is "open" if a path
  // from a va_start reaches it before a va_end. With more than one va_start/va_copy in
  // the function no va_end closes the region (we do not pair them; conservative).
  // Blocks holding the va_start or the va_end themselves count as open.
  DenseSet<const BasicBlock *> Open;
  SmallVector<const BasicBlock *, 16> Work;
  unsigned Starts = 0;
  for (BasicBlock &B : F)
    for (Instruction &I : B)
      if (auto *II = dyn_cast<IntrinsicInst>(&I))
        if (II->getIntrinsicID() == Intrinsic::vastart ||
            II->getIntrinsicID() == Intrinsic::vacopy) {
          ++Starts;
          if (Open.insert(&B).second)
            Work.push_back(&B);
        }
  if (Starts == 0)
    return Open;
  auto endsHere = [&](const BasicBlock &B) {
    if (Starts > 1)
      return false;
    for (const Instruction &I : B)
      if (auto *II = dyn_cast<IntrinsicInst>(&I))
        if (II->getIntrinsicID() == Intrinsic::vaend)
          return true;
    return false;
  };
  while (!Work.empty()) {
    const BasicBlock *B = Work.pop_back_val();
    if (endsHere(*B))
      continue; // the list is closed before the block's end
    for (const BasicBlock *S : successors(B))
      if (Open.insert(S).second)
        Work.push_back(S);
  }
  return Open;
}

namespace {

// A C++ function-local static's guard (`static T v = init();`): __cxa_guard_acquire returns
// non-zero when the caller is to run the initialiser, and until its __cxa_guard_release (or
// _abort, on an exception) every other caller waits, in libstdc++ on a futex of the kernel
// thread, or, in a process it takes for single-threaded, by throwing recursive_init_error.
// It is a once object: an initialiser switched out at a point aborted the program (the
// worker's next ULT reached the same static: 1 worker) or blocked the workers in the futex
// for ever (2 workers; 8 ULTs under FLAG preemption, every run; found by an outside tester,
// h78c, 2026-12-08). +1 for the acquire, -1 for the release and the abort, 0 otherwise;
// the edge on which the acquire returned 0 (initialised already) holds nothing
// (guardFreeEdge).
int guardEffect(const CallBase &CB) {
  const Function *C = calledFunction(CB);
  if (!C)
    return 0;
  StringRef N = C->getName();
  if (N == "__cxa_guard_acquire")
    return +1;
  if (N == "__cxa_guard_release" || N == "__cxa_guard_abort")
    return -1;
  return 0;
}

// The successor of B that a branch on a guard's acquire takes when it returned 0 (`br
// (acquire(g) != 0), init, done`: done), or null.
const BasicBlock *guardFreeEdge(const BasicBlock &B) {
  const auto *Br = dyn_cast<BranchInst>(B.getTerminator());
  if (!Br || !Br->isConditional())
    return nullptr;
  const auto *Cmp = dyn_cast<ICmpInst>(Br->getCondition());
  if (!Cmp || !Cmp->isEquality() || !match(Cmp->getOperand(1), m_Zero()))
    return nullptr;
  const auto *CB = dyn_cast<CallBase>(Cmp->getOperand(0)->stripPointerCasts());
  if (!CB || guardEffect(*CB) <= 0)
    return nullptr;
  return Br->getSuccessor(Cmp->getPredicate() == ICmpInst::ICMP_NE ? 1 : 0);
}

// The calls that take a kernel lock (+1) and that release one (-1); 0 for any other call.
int lockEffect(const CallBase &CB) {
  const Function *C = calledFunction(CB);
  if (!C)
    return 0;
  StringRef N = C->getName();
  N.consume_front("__"); // __pthread_mutex_lock, glibc's internal aliases
  if (N == "pthread_mutex_unlock" || N == "pthread_rwlock_unlock" ||
      N == "pthread_spin_unlock" || N == "mtx_unlock" || N == "funlockfile")
    return -1;
  if (N == "pthread_mutex_lock" || N == "pthread_mutex_trylock" ||
      N == "pthread_mutex_timedlock" || N == "pthread_mutex_clocklock" ||
      N == "pthread_rwlock_rdlock" || N == "pthread_rwlock_wrlock" ||
      N == "pthread_rwlock_tryrdlock" || N == "pthread_rwlock_trywrlock" ||
      N == "pthread_rwlock_timedrdlock" || N == "pthread_rwlock_timedwrlock" ||
      N == "pthread_rwlock_clockrdlock" || N == "pthread_rwlock_clockwrlock" ||
      N == "pthread_spin_lock" || N == "pthread_spin_trylock" || N == "mtx_lock" ||
      N == "mtx_trylock" || N == "mtx_timedlock" || N == "flockfile" || N == "ftrylockfile")
    return +1;
  return guardEffect(CB);
}

// The blocks of F that may run while a lock Effect counts may be held (lockOpenBlocks).
DenseSet<const BasicBlock *> openBlocks(const Function &F, int (*Effect)(const CallBase &)) {
  // A forward dataflow of how many kernel locks may be held: the most over the paths that
  // reach a point (a trylock counts as taken, conservatively; capped, so that a loop that
  // takes a lock on every turn without releasing it ends). A block is open when a lock
  // may be held at its entry or it takes one itself.
  constexpr unsigned Cap = 8;
  DenseSet<const BasicBlock *> Open;
  bool Any = false;
  for (const Instruction &I : instructions(F))
    if (const auto *CB = dyn_cast<CallBase>(&I))
      if (Effect(*CB) > 0) {
        Any = true;
        break;
      }
  if (!Any)
    return Open;
  DenseMap<const BasicBlock *, unsigned> In;
  SmallVector<const BasicBlock *, 16> Work;
  SmallPtrSet<const BasicBlock *, 16> Queued;
  const BasicBlock *Entry = &F.getEntryBlock();
  In[Entry] = 0;
  Work.push_back(Entry);
  Queued.insert(Entry);
  while (!Work.empty()) {
    const BasicBlock *B = Work.pop_back_val();
    Queued.erase(B);
    unsigned D = In.lookup(B);
    bool Takes = D > 0;
    for (const Instruction &I : *B)
      if (const auto *CB = dyn_cast<CallBase>(&I)) {
        int E = Effect(*CB);
        if (E > 0) {
          Takes = true;
          D = std::min(D + 1, Cap);
        } else if (E < 0 && D > 0) {
          --D;
        }
      }
    if (Takes)
      Open.insert(B);
    const BasicBlock *Free = guardFreeEdge(*B);
    for (const BasicBlock *S : successors(B)) {
      unsigned DS = S == Free && D > 0 ? D - 1 : D; // the guard was not taken
      auto It = In.find(S);
      if (It != In.end() && It->second >= DS)
        continue;
      In[S] = DS;
      if (Queued.insert(S).second)
        Work.push_back(S);
    }
  }
  return Open;
}

} // namespace

DenseSet<const BasicBlock *> lockOpenBlocks(Function &F) { return openBlocks(F, lockEffect); }

DenseSet<const BasicBlock *> noYieldBlocks(Function &F, bool AllowVarargRegions) {
  DenseSet<const BasicBlock *> Open;
  if (!AllowVarargRegions)
    Open = vaOpenBlocks(F);
  for (const BasicBlock *B : lockOpenBlocks(F))
    Open.insert(B);
  return Open;
}

} // namespace ito
