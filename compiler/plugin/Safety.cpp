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

using namespace llvm;

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

// pthread_once(&o, init) and C11 call_once(&o, init): while init runs, a second caller
// of the same object blocks its kernel thread in the kernel (a futex), so a ULT switched
// out inside init left every worker that ran another caller blocked for ever (16 ULTs on
// 2 workers calling pthread_once with an instrumented init hung 3 runs of 3; found by an
// outside tester, h65b, 2026-12-06). Such an init gets no points, as a signal handler.
bool isOnceRegistrar(StringRef N) {
  return N == "pthread_once" || N == "__pthread_once" || N == "call_once";
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

  // Signal handlers registered in this module.
  DenseSet<const Value *> VSeen;
  DenseSet<const Constant *> CSeen;
  for (Function &F : M) {
    bool CallsSigaction = false;
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
    if (!CallsSigaction)
      continue;
    DenseSet<const Constant *> Seen;
    for (Instruction &I : instructions(F)) {
      if (auto *St = dyn_cast<StoreInst>(&I)) {
        if (St->getValueOperand()->getType()->isPointerTy()) // a handler is a pointer
          functionsFrom(St->getValueOperand(), Handlers, VSeen, CSeen);
        continue;
      }
      for (const Use &U : I.operands())
        if (auto *GV = dyn_cast<GlobalVariable>(U.get()->stripPointerCasts()))
          functionsIn(GV, Handlers, Seen);
    }
  }
  // ... and what they call directly, transitively.
  closeOverCallees(Handlers);
  closeOverCallees(OnceInits);

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
  return 0;
}

} // namespace

DenseSet<const BasicBlock *> lockOpenBlocks(Function &F) {
  // A forward dataflow of how many kernel locks may be held: the most over the paths that
  // reach a point (a trylock counts as taken, conservatively; capped, so that a loop that
  // takes a lock on every turn without releasing it ends). A block is open when a lock
  // may be held at its entry or it takes one itself.
  constexpr unsigned Cap = 8;
  DenseSet<const BasicBlock *> Open;
  bool Any = false;
  for (Instruction &I : instructions(F))
    if (const auto *CB = dyn_cast<CallBase>(&I))
      if (lockEffect(*CB) > 0) {
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
        int E = lockEffect(*CB);
        if (E > 0) {
          Takes = true;
          D = std::min(D + 1, Cap);
        } else if (E < 0 && D > 0) {
          --D;
        }
      }
    if (Takes)
      Open.insert(B);
    for (const BasicBlock *S : successors(B)) {
      auto It = In.find(S);
      if (It != In.end() && It->second >= D)
        continue;
      In[S] = D;
      if (Queued.insert(S).second)
        Work.push_back(S);
    }
  }
  return Open;
}

DenseSet<const BasicBlock *> noYieldBlocks(Function &F, bool AllowVarargRegions) {
  DenseSet<const BasicBlock *> Open;
  if (!AllowVarargRegions)
    Open = vaOpenBlocks(F);
  for (const BasicBlock *B : lockOpenBlocks(F))
    Open.insert(B);
  return Open;
}

} // namespace ito
