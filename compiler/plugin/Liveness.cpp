// Liveness.cpp: iterative backward dataflow over SSA values (see Liveness.h).
#include "Liveness.h"

#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Instructions.h"

using namespace llvm;

namespace ito {

bool IRLiveness::isTracked(const Value *V) {
  if (isa<Argument>(V))
    return !V->getType()->isVoidTy();
  const auto *I = dyn_cast<Instruction>(V);
  if (!I || I->getType()->isVoidTy() || I->getType()->isTokenTy() ||
      I->getType()->isMetadataTy())
    return false;
  if (const auto *AI = dyn_cast<AllocaInst>(I))
    return !AI->isStaticAlloca();
  return true;
}

int IRLiveness::index(const Value *V) const {
  auto It = Index.find(V);
  return It == Index.end() ? -1 : static_cast<int>(It->second);
}

IRLiveness::IRLiveness(Function &F) {
  for (Argument &A : F.args())
    if (isTracked(&A))
      Index.try_emplace(&A, Index.size());
  for (BasicBlock &B : F) {
    BlockNo.try_emplace(&B, BlockNo.size());
    for (Instruction &I : B)
      if (isTracked(&I))
        Index.try_emplace(&I, Index.size());
  }
  const unsigned NV = Index.size(), NB = BlockNo.size();
  std::vector<BitVector> Defs(NB, BitVector(NV)), Uses(NB, BitVector(NV));
  // PhiUse[b] : values the phis of b's successors take along edges leaving b.
  std::vector<BitVector> PhiUse(NB, BitVector(NV));
  LiveIn.assign(NB, BitVector(NV));
  LiveOut.assign(NB, BitVector(NV));

  for (BasicBlock &B : F) {
    const unsigned b = BlockNo.lookup(&B);
    for (Instruction &I : B) {
      int d = index(&I);
      if (d >= 0)
        Defs[b].set(d);
      if (auto *Phi = dyn_cast<PHINode>(&I)) {
        for (unsigned k = 0; k < Phi->getNumIncomingValues(); ++k) {
          int u = index(Phi->getIncomingValue(k));
          auto P = BlockNo.find(Phi->getIncomingBlock(k));
          if (u >= 0 && P != BlockNo.end())
            PhiUse[P->second].set(u);
        }
        continue;
      }
      for (const Use &U : I.operands()) {
        int u = index(U.get());
        if (u >= 0)
          Uses[b].set(u);
      }
    }
    // SSA: a non-phi use of a value defined in the same block follows its definition.
    Uses[b].reset(Defs[b]);
  }

  // Iterate in post order (successors first) until nothing changes.
  std::vector<BasicBlock *> Order;
  for (BasicBlock *B : post_order(&F.getEntryBlock()))
    Order.push_back(B);
  bool Changed = true;
  while (Changed) {
    Changed = false;
    for (BasicBlock *B : Order) {
      const unsigned b = BlockNo.lookup(B);
      BitVector Out = PhiUse[b];
      for (BasicBlock *S : successors(B))
        Out |= LiveIn[BlockNo.lookup(S)];
      BitVector In = Out;
      In.reset(Defs[b]);
      In |= Uses[b];
      if (Out != LiveOut[b] || In != LiveIn[b]) {
        LiveOut[b] = std::move(Out);
        LiveIn[b] = std::move(In);
        Changed = true;
      }
    }
  }
}

unsigned IRLiveness::liveBefore(BasicBlock &B, BasicBlock::iterator At) const {
  BitVector Live = LiveOut[BlockNo.lookup(&B)];
  for (auto It = B.end(); It != At;) {
    --It;
    int d = index(&*It);
    if (d >= 0)
      Live.reset(d);
    if (isa<PHINode>(*It))
      break; // phi operands are live on the incoming edges, not here
    for (const Use &U : It->operands()) {
      int u = index(U.get());
      if (u >= 0)
        Live.set(u);
    }
  }
  return Live.count();
}

} // namespace ito
