// ThreadAddr.cpp: see ThreadAddr.h.
#include "ThreadAddr.h"

#include <algorithm>

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instruction.h"
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

// A member of a thread address's family: the defining call, or an address computed from a
// member (getelementptr on it, a pointer cast of it). Members are recomputed together.
const Instruction *familyBase(const Instruction &I) {
  if (const auto *G = dyn_cast<GetElementPtrInst>(&I))
    return dyn_cast<Instruction>(G->getPointerOperand());
  if (isa<BitCastInst>(I) || isa<AddrSpaceCastInst>(I))
    return dyn_cast<Instruction>(I.getOperand(0));
  return nullptr;
}

} // namespace

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
    for (auto &[At, U] : Uses) {
      if (!Last || !noSwitchBetween(LastCall, At)) {
        Value *Prev = nullptr;
        for (Instruction *I : chainOf(M)) {
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
      U->set(Last);
      ++Changed;
    }
  }
  // Members left without uses go, last first (memory(none) / const / pure arithmetic).
  for (auto It = Members.rbegin(); It != Members.rend(); ++It)
    if ((*It)->use_empty())
      (*It)->eraseFromParent();
  return Changed;
}
