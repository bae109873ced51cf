// Insert.cpp: the guard and the yield call (see Insert.h).
#include "Insert.h"
#include "Placement.h"

#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/InstIterator.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/PromoteMemToReg.h"

// The runtime's words (ito_coop_flag, ito_coop_budget) are per kernel thread and the
// runtime's own accesses are hidden from the sanitizers (src/core/sanitizer.h). Left
// visible, a sanitizer's check of such an access after a yield was given the address
// computed before it (the back end keeps the thread pointer across the call), i.e. the
// old worker's word: TSan reported a data race on every run of budget-checked code
// (found by an outside tester, 2026-12-05). The access itself is %fs-relative.
template <typename T> static T *noSan(T *I) {
  I->setMetadata(llvm::LLVMContext::MD_nosanitize, llvm::MDNode::get(I->getContext(), {}));
  return I;
}

using namespace llvm;

namespace ito {

namespace {

// The runtime's TLS word the check reads: ito_coop_flag, or ito_coop_budget.
GlobalVariable *tlsWord(Module &M, TlsModel Tls, StringRef Name) {
  Type *I32 = Type::getInt32Ty(M.getContext());
  GlobalVariable *G = M.getGlobalVariable(Name);
  if (!G)
    G = new GlobalVariable(M, I32, /*isConstant=*/false, GlobalValue::ExternalLinkage,
                           nullptr, Name, nullptr, GlobalValue::InitialExecTLSModel);
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
    : Flag(O.probe ? nullptr
                   : tlsWord(M, O.tls,
                             O.check == Check::Budget ? "ito_coop_budget" : "ito_coop_flag")),
      CC(CallingConv::C), V(O.variant), Probe(O.probe), Budget(O.check == Check::Budget),
      BudgetReg(O.budgetReg) {
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

// Whether F's exits restore exactly the SysV callee-saved registers, as the stubs assume.
bool YieldEmitter::stubFits(const Function &F) {
  CallingConv::ID Conv = F.getCallingConv();
  return (Conv == CallingConv::C || Conv == CallingConv::Fast) &&
         !F.hasFnAttribute("no_caller_saved_registers");
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

void YieldEmitter::emit(BasicBlock::iterator At, unsigned Weight) {
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
  Value *Set, *Left = nullptr;
  Type *I32 = Type::getInt32Ty(C);
  if (Slot) {
    // The function's copy of the countdown (beginFunction): a register after promotion.
    Left = B.CreateSub(B.CreateLoad(I32, Slot, "ito.budget"), B.getInt32(Weight), "ito.left");
    B.CreateStore(Left, Slot);
    Set = B.CreateICmpSLT(Left, B.getInt32(0), "ito.due");
  } else if (Budget) {
    Value *Addr = B.CreateThreadLocalAddress(Flag);
    // Folded by the x86 back end into `addl $-W, %fs:ito_coop_budget@tpoff; js`.
    LoadInst *L = noSan(B.CreateLoad(I32, Addr, /*isVolatile=*/true, "ito.budget"));
    Left = B.CreateSub(L, B.getInt32(Weight), "ito.left");
    noSan(B.CreateStore(Left, Addr, /*isVolatile=*/true));
    Set = B.CreateICmpSLT(Left, B.getInt32(0), "ito.due");
  } else {
    Value *Addr = B.CreateThreadLocalAddress(Flag);
    LoadInst *L = noSan(B.CreateLoad(I32, Addr, /*isVolatile=*/true, "ito.flag"));
    Set = B.CreateICmpNE(L, B.getInt32(0), "ito.due");
  }
  MDNode *Unlikely = MDBuilder(C).createUnlikelyBranchWeights();
  Instruction *Then = SplitBlockAndInsertIfThen(Set, At, /*Unreachable=*/false, Unlikely);
  Then->getParent()->setName("ito.yield");
  Then->getSuccessor(0)->setName("ito.cont");
  IRBuilder<> Y(Then);
  Y.SetCurrentDebugLocation(DL);
  if (Slot) // the runtime reads the word: hand it over, and take back the refill
    noSan(Y.CreateStore(Left, Y.CreateThreadLocalAddress(Flag), /*isVolatile=*/true));
  if (V == Variant::Stub && stubFits(*F))
    emitStubCall(Y, ".Lito_ys_" + Twine(Sites++));
  else if (V == Variant::Stub || MinNeedsAbi) {
    // A calling convention with more callee-saved registers than the SysV ABI (ms_abi:
    // rsi, rdi, xmm6-15; preserve_most, preserve_all; no_caller_saved_registers): the
    // stub's live sets (itocc/sites.py) assume SysV exits, and the other ULTs would
    // clobber the extra registers holding the caller's values. An ordinary call of the
    // ABI-preserving yield instead: the back end saves what this convention needs around
    // it. (Found by an outside-code test: an ms_abi function crashed its SysV caller.)
    // Variant min, in a function that may address its frame through a base pointer
    // (beginFunction): the same call, which keeps rbx.
    FunctionCallee Abi = F->getParent()->getOrInsertFunction("ito_coop_yield_abi",
                                                             FunctionType::get(Type::getVoidTy(C), false));
    CallInst *Call = Y.CreateCall(Abi);
    Call->setDoesNotThrow();
  } else {
    CallInst *Call = Y.CreateCall(Yield);
    Call->setCallingConv(CC);
    Call->setDoesNotThrow();
  }
  if (Slot)
    Y.CreateStore(noSan(Y.CreateLoad(I32, Y.CreateThreadLocalAddress(Flag), /*isVolatile=*/true)), Slot);
}

// Budget.h, "The countdown in a register".
void YieldEmitter::beginFunction(Function &F) {
  Slot = nullptr;
  Calls.clear();
  Rets.clear();
  // Variant min: a function with a dynamic alloca (a VLA, alloca()) that the back end also
  // realigns (an over-aligned local or spill slot, -mstackrealign) addresses its frame
  // through a base pointer, rbx, which clang 19 does not save around a preserve_none call:
  // after the switch it reloaded its spills through the rbx of another ULT (found by an
  // outside tester, 2026-12-04: a VLA beside an _Alignas(64) array crashed at -O0..-O2).
  // Whether it realigns is decided after register allocation, so every function with a
  // dynamic alloca calls the ABI yield instead, which keeps the callee-saved registers.
  // An inline asm that clobbers the stack pointer makes the same frame (the back end's
  // "opaque SP adjustment").
  MinNeedsAbi = false;
  if (V == Variant::Min && !Probe)
    for (Instruction &I : instructions(F)) {
      if (auto *AI = dyn_cast<AllocaInst>(&I); AI && !AI->isStaticAlloca())
        MinNeedsAbi = true;
      if (auto *CB = dyn_cast<CallBase>(&I))
        if (auto *IA = dyn_cast<InlineAsm>(CB->getCalledOperand())) {
          StringRef Cons = IA->getConstraintString();
          if (Cons.contains("~{rsp}") || Cons.contains("~{esp}") || Cons.contains("~{sp}"))
            MinNeedsAbi = true;
        }
      if (MinNeedsAbi)
        break;
    }
  // Not in an optnone function (-O0): no mem2reg runs after the pass, so the local stays
  // in memory and fast register allocation gives every copy in and out its own stack
  // slot (frames grew 3 to 6 times: a recursion that fits a 64 KiB stack built plainly at
  // -O0 overflowed it; outside tester h59d). The word in memory costs nothing more there.
  if (!Budget || !BudgetReg || Probe || F.hasOptNone())
    return;
  for (Instruction &I : instructions(F)) {
    if (isa<InvokeInst>(I) || isa<CallBrInst>(I))
      return; // their way out of the call is an edge: keep the countdown in memory
    if (auto *CI = dyn_cast<CallInst>(&I)) {
      if (CI->isMustTailCall())
        return;
      if (!isa<IntrinsicInst>(CI))
        Calls.push_back(CI);
    } else if (auto *R = dyn_cast<ReturnInst>(&I)) {
      Rets.push_back(R);
    }
  }
  BasicBlock &E = F.getEntryBlock();
  Slot = new AllocaInst(Type::getInt32Ty(F.getContext()),
                        F.getParent()->getDataLayout().getAllocaAddrSpace(), "ito.budget.slot",
                        E.getFirstInsertionPt());
}

void YieldEmitter::endFunction(Function &F) {
  if (!Slot)
    return;
  Type *I32 = Type::getInt32Ty(F.getContext());
  auto toWord = [&](Instruction *Before) {
    IRBuilder<> B(Before);
    noSan(B.CreateStore(B.CreateLoad(I32, Slot), B.CreateThreadLocalAddress(Flag), /*isVolatile=*/true));
  };
  auto fromWord = [&](Instruction *Before) {
    IRBuilder<> B(Before);
    B.CreateStore(noSan(B.CreateLoad(I32, B.CreateThreadLocalAddress(Flag), /*isVolatile=*/true)), Slot);
  };
  BasicBlock &E = F.getEntryBlock();
  fromWord(&*beginPoint(E));
  SmallPtrSet<ReturnInst *, 8> TailRets;
  for (CallInst *CI : Calls) {
    toWord(CI); // the callee's points count down the same word
    Instruction *Next = CI->getNextNode();
    if (auto *R = dyn_cast<ReturnInst>(Next)) {
      TailRets.insert(R); // nothing to take back before the return: a tail call stays one
      continue;
    }
    fromWord(Next);
  }
  for (ReturnInst *R : Rets)
    if (!TailRets.contains(R))
      toWord(R);
  AllocaInst *A = Slot;
  Slot = nullptr;
  if (isAllocaPromotable(A)) {
    DominatorTree DT(F);
    PromoteMemToReg({A}, DT);
  }
}

} // namespace ito
