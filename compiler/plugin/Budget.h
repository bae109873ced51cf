// Budget.h: what each yield point subtracts from the budget (-ito-yield-check=budget).
//
// With the budget check there is no timer: the TLS word ito_coop_budget counts estimated
// instructions down, and each point subtracts what ran since the previous point, so a
// ULT yields once about the runtime's quantum has run (ito_coop_set_budget; the runtime
// refills the word at every compiled yield). The clock is the code itself: nothing on
// another core writes the word, so no cache line moves per tick (the cost the flag check
// pays with a software timer, docs/reproductions/cooperative.md).
//
// A point's weight is the most estimated instructions (instrCost, Bound.h) on any path of
// the function from the previous point, or from the function's entry, to it: a forward
// dataflow over the blocks (the distance at a block's entry is the maximum over its
// predecessors, back edges included), reset at each point. The maximum makes the count
// an over-estimate on the shorter paths. One exception: the header of a loop that holds a
// point takes only its back edges (an iteration), since a point there runs once per
// iteration and the way into the loop, charged at each iteration, would count the code
// before the loop over and over (measured on the case study: the bound placement's loop
// headers then subtracted up to B per iteration of a 20-instruction loop); that way in is
// not charged at all. Not covered either: calls (a callee with points subtracts its own
// instructions; one without counts as its call instruction only) and loops that hold no
// point (the bound policy's collapsed loops count one iteration). So the quantum is an
// estimate; what it achieves is measured (cooperative.md). The rounds stop when
// nothing changes, at most 8 (a loop without a point would otherwise grow its distance
// every round); a weight is at least 1 and at most 1,000,000.
#ifndef ITO_COMPILER_BUDGET_H
#define ITO_COMPILER_BUDGET_H

#include "Placement.h"

#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/TargetTransformInfo.h"
#include "llvm/IR/Function.h"

#include <vector>

namespace ito {

// One weight per point of Points, in the same order (computed before any is emitted).
std::vector<unsigned> budgetWeights(llvm::Function &F, const std::vector<YieldPoint> &Points,
                                    const llvm::TargetTransformInfo &TTI,
                                    const llvm::LoopInfo &LI);

} // namespace ito

#endif
