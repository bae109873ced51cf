// ThreadAddr.cpp: see ThreadAddr.h.
#include "ThreadAddr.h"
#include "Options.h"

#include <algorithm>

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/GlobalVariable.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instruction.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace {

// A call whose result is an address that belongs to the calling kernel thread.
bool isThreadAddress(const CallBase &C) {
  if (const auto *II = dyn_cast<IntrinsicInst>(&C))
    return II->getIntrinsicID() == Intrinsic::threadlocal_address ||
           II->getIntrinsicID() == Intrinsic::thread_pointer; // __builtin_thread_pointer()
  const Function *Callee = C.getCalledFunction();
  if (!Callee)
    return false;
  StringRef N = Callee->getName();
  return N == "__errno_location" || N == "__h_errno_location" || N == "__res_state";
}

bool isThreadPointer(const Instruction *I) {
  const auto *II = dyn_cast_or_null<IntrinsicInst>(I);
  return II && II->getIntrinsicID() == Intrinsic::thread_pointer;
}

// Whether executing I may leave the ULT on another kernel thread: any call but an
// intrinsic (inline asm counts: the stub variant's yield is asm).
bool maySwitch(const Instruction &I) {
  const auto *C = dyn_cast<CallBase>(&I);
  return C && !isa<IntrinsicInst>(C) && !isThreadAddress(*C);
}

// Whether Def reaches At (later in Def's block) without passing a call.
bool noSwitchBetween(const Instruction *Def, const Instruction *At) {
  if (Def->getParent() != At->getParent() || !Def->comesBefore(At))
    return false;
  for (const Instruction *I = Def->getNextNode(); I && I != At; I = I->getNextNode())
    if (maySwitch(*I))
      return false;
  return true;
}

// A member of a thread address's family: the defining call, or an address computed from a
// member (getelementptr on it, a pointer cast of it, the address as an integer: a key or a
// hash by address is as stale as the pointer). Members are recomputed together.
const Instruction *familyBase(const Instruction &I) {
  if (const auto *G = dyn_cast<GetElementPtrInst>(&I))
    return dyn_cast<Instruction>(G->getPointerOperand());
  if (isa<BitCastInst>(I) || isa<AddrSpaceCastInst>(I) || isa<PtrToIntInst>(I))
    return dyn_cast<Instruction>(I.getOperand(0));
  return nullptr;
}

// The thread_local variable whose address C takes, if the back end will reach it through
// the module's TLS block (the local-dynamic model: what TargetMachine::getTLSModel picks
// in a PIC module that is not a PIE for a variable of this module, or for one declared
// local-dynamic; a less specific model cannot be asked for).
const GlobalVariable *localDynamicVariable(const CallInst &C) {
  const auto *II = dyn_cast<IntrinsicInst>(&C);
  if (!II || II->getIntrinsicID() != Intrinsic::threadlocal_address)
    return nullptr;
  const auto *GV = dyn_cast<GlobalVariable>(II->getArgOperand(0));
  const Module &M = *C.getModule();
  if (!GV || !GV->hasName() || M.getPICLevel() == PICLevel::NotPIC ||
      M.getPIELevel() != PIELevel::Default)
    return nullptr;
  GlobalValue::ThreadLocalMode Mode = GV->getThreadLocalMode();
  bool LD = Mode == GlobalValue::LocalDynamicTLSModel ||
            (Mode == GlobalValue::GeneralDynamicTLSModel && GV->isDSOLocal());
  return LD ? GV : nullptr;
}

// A small internal function named Name that returns what Body builds, made once per module:
// never inlined, and marked done so that the pass leaves it alone. The helpers below.
static Function *helperFunction(StringRef Name, Type *Ret, Module &M,
                                function_ref<Value *(IRBuilder<> &)> Body) {
  if (Function *H = M.getFunction(Name))
    return H;
  Function *H = Function::Create(FunctionType::get(Ret, false), GlobalValue::InternalLinkage, Name, M);
  H->addFnAttr(Attribute::NoInline);
  H->addFnAttr(Attribute::NoUnwind);
  H->addFnAttr(ito::DoneAttr);
  IRBuilder<> B(BasicBlock::Create(M.getContext(), "", H));
  B.CreateRet(Body(B));
  return H;
}

// GV's address on the calling kernel thread: one TLS access of its own, so the back end
// has nothing to share it with. Used for local-dynamic accesses and for retaken addresses
// used as values.
Function *tlsAddressHelper(const GlobalVariable &GV, Module &M) {
  return helperFunction(("__ito_tls_addr." + GV.getName()).str(), GV.getType(), M, [&](IRBuilder<> &B) {
    return B.CreateThreadLocalAddress(const_cast<GlobalVariable *>(&GV));
  });
}

// The calling kernel thread's thread pointer (__builtin_thread_pointer(),
// llvm.thread.pointer): the X86 back end takes the thread pointer as invariant and shares
// one read of %fs:0 between the copies of a block (see foldsIntoAccess), so every retaken
// copy is a call of this instead.
Function *threadPointerHelper(IntrinsicInst &TP, Module &M) {
  return helperFunction("__ito_thread_pointer", TP.getType(), M, [&](IRBuilder<> &B) {
    return B.CreateCall(TP.getFunctionType(), TP.getCalledOperand());
  });
}

// Whether U, a use of the last member of a retaken chain, reaches the variable through
// the thread pointer directly: the pointer operand of a load or a store (the back end then
// folds a local- or initial-exec address into %fs-relative addressing, read afresh at each
// access), with every getelementptr of the chain at constant offsets. Anything else makes
// the address a value in a register (passed, compared, stored, indexed), and the X86
// back end computes such values once per block for all their copies (it takes the thread
// pointer as invariant): the retake before it would be undone (found by an outside
// tester, 2026-12-05: `use(&tl); hop(); use(&tl);` passed the old worker's variable the
// second time, at -O1 and above in every variant). PIC code that is not a PIE reaches
// every variable through __tls_get_addr, whose results are shared the same way.
bool foldsIntoAccess(const Use &U, ArrayRef<Instruction *> Chain) {
  const auto *User = cast<Instruction>(U.getUser());
  const Module &M = *User->getModule();
  if (M.getPICLevel() != PICLevel::NotPIC && M.getPIELevel() == PIELevel::Default)
    return false;
  for (const Instruction *I : Chain)
    if (const auto *G = dyn_cast<GetElementPtrInst>(I); G && !G->hasAllConstantIndices())
      return false;
  // (volatile ones too: the yield flag's own store, `ito_coop_flag = 1`, is one)
  if (isa<LoadInst>(User))
    return U.getOperandNo() == LoadInst::getPointerOperandIndex();
  if (isa<StoreInst>(User))
    return U.getOperandNo() == StoreInst::getPointerOperandIndex();
  return false;
}

// C, a call of llvm.threadlocal.address(GV), becomes a call of GV's helper.
void callHelperInstead(CallInst *C, const GlobalVariable &GV) {
  CallInst *Call = CallInst::Create(tlsAddressHelper(GV, *C->getModule()), "", C->getIterator());
  Call->takeName(C);
  Call->setDebugLoc(C->getDebugLoc());
  C->replaceAllUsesWith(Call);
  C->eraseFromParent();
}

// The X86 back end computes the module's TLS block once per function for all its
// local-dynamic accesses (its local-dynamic TLS clean-up, after this pass), which would
// bring back the address the retake just replaced. So where F has two or more such
// accesses, each becomes a call of its variable's helper.
unsigned callLocalDynamicHelpers(Function &F) {
  SmallVector<std::pair<CallInst *, const GlobalVariable *>, 8> Accesses;
  for (Instruction &I : instructions(F))
    if (auto *C = dyn_cast<CallInst>(&I))
      if (const GlobalVariable *GV = localDynamicVariable(*C))
        Accesses.push_back({C, GV});
  if (Accesses.size() < 2)
    return 0;
  for (auto &[C, GV] : Accesses)
    callHelperInstead(C, *GV);
  return Accesses.size();
}

} // namespace

bool ito::unconstThreadIdentity(Module &M) {
  bool Changed = false;
  for (const char *Name : {"pthread_self", "thrd_current", "__ctype_b_loc", "__ctype_tolower_loc",
                           "__ctype_toupper_loc"}) {
    Function *F = M.getFunction(Name);
    if (!F || !F->isDeclaration())
      continue;
    // The identity calls also write it: a call-free loop then cannot compute them once
    // before the loop, where the yield points this pass puts into the loop later would
    // leave a moved ULT comparing the old worker's id (ThreadAddr.h). The <ctype.h> slots
    // only read it: their old slot still holds the same tables (the process's locale).
    const bool Identity = StringRef(Name) == "pthread_self" || StringRef(Name) == "thrd_current";
    const MemoryEffects Reads =
        MemoryEffects::inaccessibleMemOnly(Identity ? ModRefInfo::ModRef : ModRefInfo::Ref);
    if (F->getMemoryEffects().doesNotAccessMemory()) {
      F->setMemoryEffects(Reads);
      Changed = true;
    }
    for (User *U : F->users())
      if (auto *C = dyn_cast<CallBase>(U); C && C->getCalledFunction() == F &&
                                          C->getMemoryEffects().doesNotAccessMemory()) {
        C->removeFnAttr(Attribute::Memory);
        C->setMemoryEffects(Reads);
        Changed = true;
      }
  }
  return Changed;
}

unsigned ito::retakeThreadAddresses(Function &F) {
  // The family, in program order (a member's base comes before it: it dominates it).
  SmallVector<Instruction *, 16> Members;
  SmallPtrSet<const Instruction *, 16> InFamily;
  for (BasicBlock &BB : F)
    for (Instruction &I : BB) {
      const auto *C = dyn_cast<CallBase>(&I);
      if (C && isThreadAddress(*C) && !isa<InvokeInst>(C)) {
        Members.push_back(&I);
        InFamily.insert(&I);
      }
    }
  for (size_t K = 0; K < Members.size(); ++K) // grows while it is walked: breadth first
    for (User *U : Members[K]->users())
      if (auto *I = dyn_cast<Instruction>(U); I && familyBase(*I) == Members[K] && InFamily.insert(I).second)
        Members.push_back(I);
  if (Members.empty())
    return 0;
  DenseMap<const Instruction *, unsigned> Pos; // instruction order, to sort uses
  unsigned N = 0;
  for (BasicBlock &BB : F)
    for (Instruction &I : BB)
      Pos[&I] = N++;

  // The chain of M from its defining call (that call first).
  auto chainOf = [&](Instruction *M) {
    SmallVector<Instruction *, 4> Chain;
    for (Instruction *I = M; I; I = InFamily.count(I) ? const_cast<Instruction *>(familyBase(*I)) : nullptr)
      Chain.push_back(I);
    std::reverse(Chain.begin(), Chain.end());
    return Chain;
  };
  // Whether M's whole chain runs in At's block with no call between its call and At (the
  // rest of the chain lies between the two: the call dominates it, and it dominates At).
  auto validAt = [&](Instruction *M, Instruction *At) { return noSwitchBetween(chainOf(M).front(), At); };

  unsigned Changed = 0;
  SmallPtrSet<Instruction *, 8> ByValue; // retaken copies whose address is a value
  for (Instruction *M : Members) {
    // Each use outside the family, with the instruction before which it must be valid.
    SmallVector<std::pair<Instruction *, Use *>, 8> Uses;
    for (Use &U : M->uses()) {
      auto *User = cast<Instruction>(U.getUser());
      if (InFamily.count(User) && familyBase(*User) == M)
        continue; // a member: recomputed with its own uses
      Instruction *At = User;
      if (auto *Phi = dyn_cast<PHINode>(User))
        At = Phi->getIncomingBlock(U)->getTerminator();
      if (!validAt(M, At))
        Uses.push_back({At, &U});
    }
    // In program order, so that uses of one block with no call between share one copy.
    llvm::sort(Uses, [&](const auto &A, const auto &B) { return Pos[A.first] < Pos[B.first]; });
    Instruction *Last = nullptr, *LastCall = nullptr;
    SmallVector<Instruction *, 4> Chain = chainOf(M);
    for (auto &[At, U] : Uses) {
      if (!Last || !noSwitchBetween(LastCall, At)) {
        Value *Prev = nullptr;
        for (Instruction *I : Chain) {
          Instruction *Copy = I->clone();
          if (Prev)
            Copy->setOperand(isa<GetElementPtrInst>(I) ? GetElementPtrInst::getPointerOperandIndex() : 0, Prev);
          Copy->insertBefore(At);
          if (!Prev)
            LastCall = Copy;
          Prev = Copy;
        }
        Last = cast<Instruction>(Prev);
      }
      if (!foldsIntoAccess(*U, Chain) || isThreadPointer(LastCall))
        ByValue.insert(LastCall);
      U->set(Last);
      ++Changed;
    }
  }
  // A retaken thread_local address used as a value becomes a call of its variable's
  // helper, which the back end cannot share with another (see foldsIntoAccess). errno's
  // copies are calls already.
  for (Instruction *C : ByValue) {
    auto *II = dyn_cast<IntrinsicInst>(C);
    if (isThreadPointer(C)) {
      CallInst *Call = CallInst::Create(threadPointerHelper(*II, *C->getModule()), "", C->getIterator());
      Call->takeName(C);
      Call->setDebugLoc(C->getDebugLoc());
      C->replaceAllUsesWith(Call);
      C->eraseFromParent();
      continue;
    }
    const auto *GV = II && II->getIntrinsicID() == Intrinsic::threadlocal_address
                         ? dyn_cast<GlobalVariable>(II->getArgOperand(0)) : nullptr;
    if (GV && GV->hasName())
      callHelperInstead(II, *GV);
  }
  // Members left without uses go, last first (memory(none) / const / pure arithmetic).
  for (auto It = Members.rbegin(); It != Members.rend(); ++It)
    if ((*It)->use_empty())
      (*It)->eraseFromParent();
  return Changed + callLocalDynamicHelpers(F);
}
