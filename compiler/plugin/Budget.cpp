// Budget.cpp: the weights of the budget check (see Budget.h).
#include "Budget.h"
#include "Bound.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/IR/CFG.h"

#include <algorithm>
#include <cmath>

using namespace llvm;

namespace ito {

std::vector<unsigned> budgetWeights(Function &F, const std::vector<YieldPoint> &Points,
                                    const TargetTransformInfo &TTI, const BlockFrequencyInfo &BFI,
                                    const BranchProbabilityInfo &BPI) {
  constexpr double Cap = 1e6;
  constexpr unsigned Rounds = 200;
  DenseMap<const Instruction *, size_t> PointAt;
  for (size_t K = 0; K < Points.size(); K++)
    PointAt[&*Points[K].At] = K;
  std::vector<double> W(Points.size(), 0.0);
  ReversePostOrderTraversal<Function *> RPO(&F);
  DenseMap<const BasicBlock *, double> Out; // expected distance at a block's end
  for (unsigned R = 0; R < Rounds; R++) {
    double Moved = 0;
    for (BasicBlock *B : RPO) {
      // The expected distance at entry: the predecessors' distances weighted by how often
      // each edge is taken (the static profile: branch weights, else LLVM's heuristics).
      double In = 0, Sum = 0;
      for (BasicBlock *P : predecessors(B)) {
        double Edge = static_cast<double>(BFI.getBlockFreq(P).getFrequency()) *
                      BPI.getEdgeProbability(P, B).getNumerator() /
                      BranchProbability::getDenominator();
        auto It = Out.find(P);
        In += Edge * (It == Out.end() ? 0.0 : It->second);
        Sum += Edge;
      }
      double D = Sum > 0 ? In / Sum : 0.0;
      for (Instruction &I : *B) {
        if (auto It = PointAt.find(&I); It != PointAt.end()) {
          W[It->second] = D;
          D = 0;
        }
        D = std::min(Cap, D + static_cast<double>(instrCost(I, TTI)));
      }
      double &O = Out[B];
      Moved = std::max(Moved, std::fabs(D - O));
      O = D;
    }
    if (Moved < 0.01)
      break;
  }
  std::vector<unsigned> Out32;
  Out32.reserve(W.size());
  for (double V : W)
    Out32.push_back(static_cast<unsigned>(std::clamp(std::lround(V), 1L, static_cast<long>(Cap))));
  return Out32;
}

} // namespace ito
