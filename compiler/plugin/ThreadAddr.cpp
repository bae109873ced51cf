// ThreadAddr.cpp: see ThreadAddr.h.
#include "ThreadAddr.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"

using namespace llvm;

namespace {

// A call whose result is an address that belongs to the calling kernel thread.
bool isThreadAddress(const CallBase &C) {
  if (const auto *II = dyn_cast<IntrinsicInst>(&C))
    return II->getIntrinsicID() == Intrinsic::threadlocal_address;
  const Function *Callee = C.getCalledFunction();
  if (!Callee)
    return false;
  StringRef N = Callee->getName();
  return N == "__errno_location" || N == "__h_errno_location";
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

} // namespace

unsigned ito::retakeThreadAddresses(Function &F) {
  SmallVector<CallBase *, 16> Defs;
  DenseMap<const Instruction *, unsigned> Pos; // instruction order, to sort uses
  unsigned N = 0;
  for (BasicBlock &BB : F)
    for (Instruction &I : BB) {
      Pos[&I] = N++;
      if (auto *C = dyn_cast<CallBase>(&I); C && isThreadAddress(*C) && !isa<InvokeInst>(C))
        Defs.push_back(C);
    }
  unsigned Changed = 0;
  for (CallBase *D : Defs) {
    // Each use with the instruction before which its address must be valid.
    SmallVector<std::pair<Instruction *, Use *>, 8> Uses;
    for (Use &U : D->uses()) {
      auto *User = cast<Instruction>(U.getUser());
      Instruction *At = User;
      if (auto *Phi = dyn_cast<PHINode>(User))
        At = Phi->getIncomingBlock(U)->getTerminator();
      if (!noSwitchBetween(D, At))
        Uses.push_back({At, &U});
    }
    // In program order, so that uses of one block with no call between share one copy.
    llvm::sort(Uses, [&](const auto &A, const auto &B) { return Pos[A.first] < Pos[B.first]; });
    Instruction *Last = nullptr;
    for (auto &[At, U] : Uses) {
      if (!Last || !noSwitchBetween(Last, At)) {
        Last = D->clone();
        Last->insertBefore(At);
      }
      U->set(Last);
      ++Changed;
    }
    if (D->use_empty())
      D->eraseFromParent(); // memory(none) / const: nothing else depends on the call
  }
  return Changed;
}
