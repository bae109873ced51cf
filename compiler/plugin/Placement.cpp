// Placement.cpp: choosing the blocks and the side of each block (see Placement.h).
#include "Placement.h"
#include "Liveness.h"
#include "Safety.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"

#include <algorithm>

using namespace llvm;

namespace ito {

BasicBlock::iterator beginPoint(BasicBlock &B) {
  BasicBlock::iterator It = B.getFirstInsertionPt();
  if (B.isEntryBlock()) // keep every static alloca in front of the split
    for (auto J = It; J != B.end(); ++J)
      if (isa<AllocaInst>(*J))
        It = std::next(J);
  return It;
}

BasicBlock::iterator endPoint(BasicBlock &B) {
  Instruction *T = B.getTerminator();
  BasicBlock::iterator It = T->getIterator();
  auto prevIs = [&](auto Pred) {
    if (It == B.begin())
      return false;
    Instruction &P = *std::prev(It);
    return !isa<PHINode>(P) && Pred(P);
  };
  if (isa<ReturnInst>(T)) {
    if (prevIs([](Instruction &P) {
          auto *C = dyn_cast<CallInst>(&P);
          return C && (C->isTailCall() || C->isMustTailCall());
        }))
      --It;
    return It;
  }
  Value *Cond = nullptr;
  if (auto *Br = dyn_cast<BranchInst>(T); Br && Br->isConditional())
    Cond = Br->getCondition();
  else if (auto *Sw = dyn_cast<SwitchInst>(T))
    Cond = Sw->getCondition();
  if (Cond && prevIs([&](Instruction &P) { return &P == Cond && P.hasOneUse(); }))
    --It;
  return It;
}

bool eligibleBlock(BasicBlock &B, const DenseSet<const BasicBlock *> &VaOpen) {
  if (B.isEHPad() || !B.getTerminator() || isa<UnreachableInst>(B.getTerminator()))
    return false;
  if (B.getFirstInsertionPt() == B.end())
    return false;
  return !VaOpen.contains(&B);
}

namespace {

unsigned sizeOf(const BasicBlock &B) {
  unsigned N = 0;
  for (const Instruction &I : B)
    if (!isa<PHINode>(I) && !isa<DbgInfoIntrinsic>(I))
      ++N;
  return N;
}

} // namespace

std::vector<YieldPoint> placeYieldPoints(Function &F, const YieldOptions &O) {
  std::vector<YieldPoint> Points;
  DenseSet<const BasicBlock *> VaOpen = noYieldBlocks(F, O.allowVarargRegions);
  IRLiveness Live(F);

  // Reverse post order; a retreating edge goes to a block not yet numbered after it.
  ReversePostOrderTraversal<Function *> RPOT(&F);
  DenseMap<const BasicBlock *, unsigned> Rank;
  for (BasicBlock *B : RPOT)
    Rank.try_emplace(B, Rank.size());
  DenseMap<const BasicBlock *, unsigned> DistOut; // instructions since the last point

  for (BasicBlock *B : RPOT) {
    bool Cycle = B->isEntryBlock();
    unsigned DistIn = 0;
    for (BasicBlock *P : predecessors(B)) {
      auto R = Rank.find(P);
      if (R == Rank.end())
        continue; // unreachable predecessor
      if (R->second >= Rank.lookup(B))
        Cycle = true;
      else
        DistIn = std::max(DistIn, DistOut.lookup(P));
    }
    const unsigned Size = sizeOf(*B);
    bool Want = false;
    switch (O.policy) {
    case Policy::Every:
      Want = true;
      break;
    case Policy::Loops:
      Want = Cycle;
      break;
    case Policy::Distance:
      Want = Cycle || DistIn + Size >= O.distance;
      break;
    case Policy::Bound: // placed by BoundPlacer (Bound.h), not here
      Want = Cycle;
      break;
    }
    DistOut[B] = DistIn + Size;
    if (!Want || !eligibleBlock(*B, VaOpen))
      continue;

    BasicBlock::iterator Bg = beginPoint(*B), En = endPoint(*B);
    unsigned LB = Live.liveBefore(*B, Bg), LE = Live.liveBefore(*B, En);
    bool AtBegin = O.place == Place::Begin || (O.place == Place::Auto && LB <= LE);
    BasicBlock::iterator At = AtBegin ? Bg : En;
    unsigned After = 0;
    for (auto J = At; J != B->end(); ++J)
      ++After;
    DistOut[B] = After;
    Points.push_back({B, At, AtBegin, LB, LE});
  }
  return Points;
}

} // namespace ito
