// Bound.h: placing as few checks as keep every path between two checks under a bound B
// (the paper's future work, section 6: "removes unneeded thread scheduler calls based on
// worst case runtime analysis").
//
// Unit: estimated machine instructions. Each IR instruction costs what the target's
// TargetTransformInfo says it costs in code size (TCK_CodeSize: about one per machine
// instruction it becomes; 0 for phis, no-op casts, static allocas, debug and lifetime
// markers). The achieved intervals in real machine instructions and cycles are measured,
// not assumed: see compiler/itocc/intervals.py and the probe build (Insert.h).
//
// Per function, three numbers summarise it for its callers (NONE: no such path):
//   P  the most instructions from its entry to its first check;
//   T  the most instructions from entry to return on a path that passes no check;
//   S  the most instructions from its last check to return.
// Functions are placed bottom-up over the call graph (callees first), so that a call to
// a function of the module costs its summary: before the call the distance d since the
// last check must satisfy d + max(P, T) <= B (else a check goes before the call); after
// it d = max(S, d + T). Calls inside a recursive cycle get a check before and after.
// Calls to code outside the module, indirect calls, and functions that are never
// instrumented (ito_noyield, handlers, returns_twice, the runtime) count -ito-yield-
// extern-cost instructions: the bound covers the instrumented code only. A function whose
// address is taken checks at its entry: outside code may call it back in a loop (measured:
// qsort calling stb_vorbis's comparator ran 43,000 instructions without a check).
// For the same reason a function that other modules may call (not of local linkage) checks
// at its entry when it may call out of the module: a call, directly or through its callees
// here, to a function without a body here that is not a known C library function, or an
// indirect call (summary Out). A cycle through two modules (a() in one file calling b() in
// another, which calls a()) passes no check otherwise, each call costing only the extern
// cost: a recursion split over two files ran 0.2 s without one, and cycles like it are the
// shape of parsers and interpreters split over files (found by an outside tester, h74b,
// 2026-12-07; lit test bound_cross_module.ll).
//
// Loops: a natural loop is "collapsed" (no check inside) when scalar evolution knows a
// maximum trip count TC, its inner loops are collapsed, it calls nothing that checks,
// and TC x L <= B, L being the costliest single iteration; its header then adds (TC-1) x L
// to the distance of the paths through it (a check goes at the end of its preheader if
// the loop would push the distance over B). Every other loop header, and every other
// target of a retreating edge (irreducible cycles), gets a check at its beginning, so no
// cycle runs without a check.
//
// Small loops of unknown trip count (-ito-yield-unroll=K, off by default): an innermost loop
// that would get a header check, whose iteration costs at most -ito-yield-unroll-body
// estimated instructions and calls nothing that checks, is first unrolled by K (up to
// B / iteration) with its exit test kept in every copy (LLVM's UnrollLoop without a
// remainder), so that its one header check runs once per K iterations. Not at -O0.
// Measured on the case study (K = 4): 36% fewer checks executed but 0.6% more instructions
// in all (the copies' exit tests and worse code), and 27% more code: hence off.
//
// Then, in reverse post order with retreating edges ignored, each block's distance at
// entry is the maximum over its predecessors, and a walk through its instructions places
// a check right before the first instruction that would take the distance over B. Blocks
// that may hold no point (EH pads, va_list regions, blocks ending in unreachable) are
// walked but get no check; each such excess is counted as a violation in the report.
#ifndef ITO_COMPILER_BOUND_H
#define ITO_COMPILER_BOUND_H

#include "Options.h"
#include "Placement.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/Analysis/TargetTransformInfo.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/PassManager.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace ito {

// What one IR instruction counts: its TargetTransformInfo code-size cost (see above).
int64_t instrCost(const llvm::Instruction &I, const llvm::TargetTransformInfo &TTI);

struct BoundSummary {
  static constexpr int64_t None = -1;
  int64_t P = None, T = 0, S = None;
  // Whether it may call code outside the module that may call back in (see above).
  bool Out = true;
};

class BoundPlacer {
public:
  BoundPlacer(const YieldOptions &O, llvm::FunctionAnalysisManager &FAM) : O(O), FAM(FAM) {}

  // The points of F; records F's summary for its callers. Recursive: the functions of
  // F's call-graph cycle (calls to them are treated as recursion).
  std::vector<YieldPoint> place(llvm::Function &F,
                                const llvm::DenseSet<const llvm::Function *> &Recursive);
  // A function that gets no points (skipped for safety, or a declaration): it counts as
  // outside code; only a declaration of a known C library function calls nothing back.
  void markOpaque(const llvm::Function &F);

  const BoundSummary *summary(const llvm::Function &F) const;
  unsigned violations() const { return Violations; }

private:
  // Unrolls the innermost loops of unknown trip count whose iteration is small (Bound.h);
  // true when F changed.
  bool unrollSmallLoops(llvm::Function &F, const llvm::DenseSet<const llvm::Function *> &Recursive);
  // What a call instruction costs when nothing checks inside the callee; nullopt when it
  // may check (or recurse).
  std::optional<int64_t> checklessCall(const llvm::Instruction &I, int64_t C,
                                       const llvm::DenseSet<const llvm::Function *> &Recursive) const;

  const YieldOptions &O;
  llvm::FunctionAnalysisManager &FAM;
  llvm::DenseMap<const llvm::Function *, BoundSummary> Sum;
  std::optional<llvm::TargetLibraryInfoImpl> Lib; // the C library's functions, for markOpaque
  unsigned Violations = 0;
};

} // namespace ito

#endif
