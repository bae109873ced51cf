// Budget.cpp: the weights of the budget check (see Budget.h).
#include "Budget.h"
#include "Bound.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/IR/CFG.h"

#include <algorithm>

using namespace llvm;

namespace ito {

std::vector<unsigned> budgetWeights(Function &F, const std::vector<YieldPoint> &Points,
                                    const TargetTransformInfo &TTI, const LoopInfo &LI) {
  constexpr int64_t Cap = 1000000;
  constexpr unsigned Rounds = 8;
  DenseMap<const Instruction *, size_t> PointAt;
  for (size_t K = 0; K < Points.size(); K++)
    PointAt[&*Points[K].At] = K;
  std::vector<int64_t> W(Points.size(), 0);
  DenseSet<const Loop *> Checked; // loops with a point inside
  for (const YieldPoint &P : Points)
    for (const Loop *L = LI.getLoopFor(P.Block); L; L = L->getParentLoop())
      Checked.insert(L);
  ReversePostOrderTraversal<Function *> RPO(&F);
  DenseMap<const BasicBlock *, int64_t> Out;
  for (unsigned R = 0; R < Rounds; R++) {
    bool Changed = false;
    for (BasicBlock *B : RPO) {
      int64_t D = 0;
      const Loop *L = LI.getLoopFor(B);
      bool Iteration = L && L->getHeader() == B && Checked.contains(L);
      for (const BasicBlock *P : predecessors(B))
        if (Iteration && !L->contains(P))
          continue; // the way into a checked loop is charged once, not per iteration
        else if (auto It = Out.find(P); It != Out.end())
          D = std::max(D, It->second);
      for (Instruction &I : *B) {
        if (auto It = PointAt.find(&I); It != PointAt.end()) {
          W[It->second] = std::max(W[It->second], D);
          D = 0;
        }
        D = std::min(Cap, D + instrCost(I, TTI));
      }
      auto [It, New] = Out.try_emplace(B, D);
      if (New || D > It->second) {
        It->second = D;
        Changed = true;
      }
    }
    if (!Changed)
      break;
  }
  std::vector<unsigned> Out32;
  Out32.reserve(W.size());
  for (int64_t V : W)
    Out32.push_back(static_cast<unsigned>(std::clamp<int64_t>(V, 1, Cap)));
  return Out32;
}

} // namespace ito
