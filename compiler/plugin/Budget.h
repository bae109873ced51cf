// Budget.h: what each yield point subtracts from the budget (-ito-yield-check=budget).
//
// With the budget check there is no timer: the TLS word ito_coop_budget counts estimated
// instructions down, and each point subtracts what ran since the previous point, so a
// ULT yields once about the runtime's quantum has run (ito_coop_set_budget; the runtime
// refills the word at every compiled yield). The clock is the code itself: nothing on
// another core writes the word, so no cache line moves per tick (the cost the flag check
// pays with a software timer, docs/reproductions/cooperative.md).
//
// A point's weight is the expected number of estimated instructions (instrCost, Bound.h)
// run since the previous point of the function (or its entry), by the static profile: a
// forward dataflow in which a block's entry distance is its predecessors' end distances
// weighted by the frequencies of the edges (BlockFrequencyInfo x BranchProbabilityInfo:
// branch weights where the code has them, LLVM's heuristics elsewhere), reset at each point,
// iterated until it settles (a loop's way in is then spread over its iterations). Expected,
// not longest: a countdown measures a rate, the bound policy already caps the longest
// path. (The longest path, the first version, charges every turn of a loop with its
// costliest branch: on zlib 8x as many yields as the instructions run asked for, on the case
// study's decoder 20 % more.) Not covered: calls (a callee with
// points subtracts its own instructions; one without counts as its call instruction only).
// So the quantum is an estimate; what it achieves is measured (cooperative.md). A weight is
// at least 1 and at most 1,000,000.
#ifndef ITO_COMPILER_BUDGET_H
#define ITO_COMPILER_BUDGET_H

#include "Placement.h"

#include "llvm/Analysis/BlockFrequencyInfo.h"
#include "llvm/Analysis/BranchProbabilityInfo.h"
#include "llvm/Analysis/TargetTransformInfo.h"
#include "llvm/IR/Function.h"

#include <vector>

namespace ito {

// One weight per point of Points, in the same order (computed before any is emitted).
std::vector<unsigned> budgetWeights(llvm::Function &F, const std::vector<YieldPoint> &Points,
                                    const llvm::TargetTransformInfo &TTI,
                                    const llvm::BlockFrequencyInfo &BFI,
                                    const llvm::BranchProbabilityInfo &BPI);

} // namespace ito

#endif
