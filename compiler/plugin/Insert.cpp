// Insert.cpp: the guard and the yield call (see Insert.h).
#include "Insert.h"

#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

using namespace llvm;

namespace ito {

namespace {

GlobalVariable *flagVariable(Module &M, TlsModel Tls) {
  Type *I32 = Type::getInt32Ty(M.getContext());
  GlobalVariable *G = M.getGlobalVariable("ito_coop_flag");
  if (!G)
    G = new GlobalVariable(M, I32, /*isConstant=*/false, GlobalValue::ExternalLinkage,
                           nullptr, "ito_coop_flag", nullptr,
                           GlobalValue::InitialExecTLSModel);
  if (Tls == TlsModel::LocalExec) {
    if (G->isDeclaration()) {
      G->setLinkage(GlobalValue::WeakAnyLinkage);
      G->setInitializer(ConstantInt::get(I32, 0));
    }
    G->setThreadLocalMode(GlobalValue::LocalExecTLSModel);
    G->setDSOLocal(true);
  }
  return G;
}

} // namespace

YieldEmitter::YieldEmitter(Module &M, const YieldOptions &O)
    : Flag(O.probe ? nullptr : flagVariable(M, O.tls)), CC(CallingConv::C), V(O.variant),
      Probe(O.probe) {
  LLVMContext &C = M.getContext();
  if (V == Variant::Stub || Probe)
    return;
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

// A call the register allocator believes preserves every register: only memory, the
// flags and the x87 status word are declared clobbered.
void YieldEmitter::emitStubCall(IRBuilder<> &B, const Twine &Target) {
  FunctionType *FT = FunctionType::get(B.getVoidTy(), false);
  std::string Text =
      ("lea -128(%rsp), %rsp\n\tcall " + Target + "\n\tlea 128(%rsp), %rsp").str();
  InlineAsm *IA = InlineAsm::get(FT, Text, "~{memory},~{dirflag},~{fpsr},~{flags}",
                                 /*hasSideEffects=*/true);
  CallInst *Call = B.CreateCall(FT, IA);
  Call->setDoesNotThrow();
}

void YieldEmitter::emit(BasicBlock::iterator At) {
  Function *F = At->getFunction();
  LLVMContext &C = F->getContext();
  DebugLoc DL;
  if (DISubprogram *SP = F->getSubprogram())
    DL = DILocation::get(C, 0, 0, SP); // line 0: compiler-generated
  IRBuilder<> B(At->getParent(), At);
  B.SetCurrentDebugLocation(DL);
  if (Probe) {
    emitStubCall(B, "ito_probe_hit@PLT");
    return;
  }
  Value *Addr = B.CreateThreadLocalAddress(Flag);
  LoadInst *L = B.CreateLoad(Type::getInt32Ty(C), Addr, /*isVolatile=*/true, "ito.flag");
  Value *Set = B.CreateICmpNE(L, B.getInt32(0), "ito.due");
  MDNode *Unlikely = MDBuilder(C).createUnlikelyBranchWeights();
  Instruction *Then = SplitBlockAndInsertIfThen(Set, At, /*Unreachable=*/false, Unlikely);
  Then->getParent()->setName("ito.yield");
  Then->getSuccessor(0)->setName("ito.cont");
  IRBuilder<> Y(Then);
  Y.SetCurrentDebugLocation(DL);
  if (V == Variant::Stub) {
    emitStubCall(Y, ".Lito_ys_" + Twine(Sites++));
    return;
  }
  CallInst *Call = Y.CreateCall(Yield);
  Call->setCallingConv(CC);
  Call->setDoesNotThrow();
}

} // namespace ito
