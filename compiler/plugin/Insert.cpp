// Insert.cpp: the guard and the yield call (see Insert.h).
#include "Insert.h"

#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

using namespace llvm;

namespace ito {

YieldEmitter::YieldEmitter(Module &M, Variant V) {
  LLVMContext &C = M.getContext();
  Type *I32 = Type::getInt32Ty(C);
  Flag = M.getGlobalVariable("ito_coop_flag");
  if (!Flag)
    Flag = new GlobalVariable(M, I32, /*isConstant=*/false, GlobalValue::ExternalLinkage,
                              nullptr, "ito_coop_flag", nullptr,
                              GlobalValue::InitialExecTLSModel);
  const char *Name = V == Variant::Min   ? "ito_coop_yield"
                     : V == Variant::Abi ? "ito_coop_yield_abi"
                                         : "ito_coop_yield_full";
  CC = V == Variant::Min ? CallingConv::PreserveNone : CallingConv::C;
  Yield = M.getOrInsertFunction(Name, FunctionType::get(Type::getVoidTy(C), false));
  if (auto *F = dyn_cast<Function>(Yield.getCallee())) {
    F->setCallingConv(CC);
    F->setDoesNotThrow();
  }
}

void YieldEmitter::emit(BasicBlock::iterator At) {
  Function *F = At->getFunction();
  LLVMContext &C = F->getContext();
  DebugLoc DL;
  if (DISubprogram *SP = F->getSubprogram())
    DL = DILocation::get(C, 0, 0, SP); // line 0: compiler-generated
  IRBuilder<> B(At->getParent(), At);
  B.SetCurrentDebugLocation(DL);
  Value *Addr = B.CreateThreadLocalAddress(Flag);
  LoadInst *L = B.CreateLoad(Type::getInt32Ty(C), Addr, /*isVolatile=*/true, "ito.flag");
  Value *Set = B.CreateICmpNE(L, B.getInt32(0), "ito.due");
  MDNode *Unlikely = MDBuilder(C).createUnlikelyBranchWeights();
  Instruction *Then = SplitBlockAndInsertIfThen(Set, At, /*Unreachable=*/false, Unlikely);
  Then->getParent()->setName("ito.yield");
  Then->getSuccessor(0)->setName("ito.cont");
  IRBuilder<> Y(Then);
  Y.SetCurrentDebugLocation(DL);
  CallInst *Call = Y.CreateCall(Yield);
  Call->setCallingConv(CC);
  Call->setDoesNotThrow();
}

} // namespace ito
