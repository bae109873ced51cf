// Liveness.h: the plugin's estimate of how many values are live at a point of the IR.
//
// This is SSA liveness over LLVM IR, not register liveness: it runs before instruction
// selection and register allocation, so it cannot see rematerialisation, spills, values
// the selector folds away, or registers that hold several values. It is only the
// plugin's estimate for choosing between the beginning and the end of a block; the
// machine-level truth is measured after register allocation by compiler/census/.
//
// Counted: instructions with a non-void, non-token result and function arguments.
// Not counted: constants, globals, and static allocas of the entry block (their address
// is a fixed frame offset that the code generator recomputes from rsp/rbp).
//
// Invariants: liveIn(B) is the set live just after B's phis (phi results excluded,
// being defined at the top of B); liveOut(B) includes the incoming values that B's
// successors' phis take along the edge from B.
#ifndef ITO_COMPILER_LIVENESS_H
#define ITO_COMPILER_LIVENESS_H

#include "llvm/ADT/BitVector.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/IR/BasicBlock.h"
#include "llvm/IR/Function.h"

#include <vector>

namespace ito {

class IRLiveness {
public:
  explicit IRLiveness(llvm::Function &F);

  // Number of tracked values live just before instruction At of block B.
  unsigned liveBefore(llvm::BasicBlock &B, llvm::BasicBlock::iterator At) const;

  static bool isTracked(const llvm::Value *V);

private:
  int index(const llvm::Value *V) const;

  llvm::DenseMap<const llvm::Value *, unsigned> Index;
  llvm::DenseMap<const llvm::BasicBlock *, unsigned> BlockNo;
  std::vector<llvm::BitVector> LiveIn, LiveOut;
};

} // namespace ito

#endif
