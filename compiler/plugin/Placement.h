// Placement.h: which blocks of a function get a yield point, and where in the block.
//
// A point is either at the beginning of a block (after its phis, landing pad, and, in
// the entry block, after its static allocas so that they stay static) or at its end
// (before the terminator together with the instructions that must stay next to it: the
// single-use compare feeding a conditional branch or switch, and a tail call directly
// before a ret). With Place::Auto the side with fewer live IR values wins, ties go to
// the beginning (the paper's case study always used the beginning).
//
// Policies (the paper inserts into every block):
//  Every     every eligible block;
//  Loops     the entry block and every target of a retreating edge in reverse post
//            order (the loop headers; in irreducible control flow, one block per cycle),
//            so that no cycle and no call chain runs without passing a point;
//  Distance  as Loops, plus any block where the longest path (in IR instructions)
//            since the last point would reach `distance` within that block.
#ifndef ITO_COMPILER_PLACEMENT_H
#define ITO_COMPILER_PLACEMENT_H

#include "Options.h"

#include "llvm/ADT/DenseSet.h"
#include "llvm/IR/BasicBlock.h"
#include "llvm/IR/Function.h"

#include <vector>

namespace ito {

struct YieldPoint {
  llvm::BasicBlock *Block;
  llvm::BasicBlock::iterator At; // the point is just before this instruction
  bool AtBegin;
  unsigned LiveBegin, LiveEnd; // IR estimate at both candidate positions
  const char *Pos = nullptr;    // for the report: "begin", "end" or "mid" (null: by AtBegin)
};

std::vector<YieldPoint> placeYieldPoints(llvm::Function &F, const YieldOptions &O);

// The two candidate positions of a block, and whether a block may hold a point at all
// (shared with the bounded placement of Bound.h).
llvm::BasicBlock::iterator beginPoint(llvm::BasicBlock &B);
llvm::BasicBlock::iterator endPoint(llvm::BasicBlock &B);
bool eligibleBlock(llvm::BasicBlock &B, const llvm::DenseSet<const llvm::BasicBlock *> &VaOpen);

} // namespace ito

#endif
