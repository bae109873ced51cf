// Bound.cpp: the bounded placement (see Bound.h).
#include "Bound.h"
#include "Liveness.h"
#include "Safety.h"

#include "llvm/ADT/PostOrderIterator.h"
#include "llvm/Analysis/AssumptionCache.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Analysis/OptimizationRemarkEmitter.h"
#include "llvm/Analysis/ScalarEvolution.h"
#include "llvm/Analysis/TargetTransformInfo.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/TargetParser/Triple.h"
#include "llvm/Transforms/Utils/LoopUtils.h"
#include "llvm/Transforms/Utils/LoopSimplify.h"
#include "llvm/Transforms/Utils/UnrollLoop.h"

#include <algorithm>

using namespace llvm;

namespace ito {

namespace {

constexpr int64_t None = BoundSummary::None;

// a + b where None (no such path) absorbs.
int64_t plus(int64_t A, int64_t B) { return A == None || B == None ? None : A + B; }

// Distances at a program point: the most instructions since function entry on paths
// that passed no check (E), and since the last check on paths that passed one (C).
struct Dist {
  int64_t E = None, C = None;
  int64_t max() const { return std::max(E, C); }
  void add(int64_t N) {
    E = plus(E, N);
    C = plus(C, N);
  }
  void join(const Dist &O) {
    E = std::max(E, O.E);
    C = std::max(C, O.C);
  }
};

struct LoopFacts {
  bool Collapsed = false;
  int64_t TripCount = 0, Iteration = 0; // trip count and costliest iteration
};

// The function a call instruction calls directly (not an intrinsic), else nullptr.
const Function *directCallee(const Instruction &I) {
  const auto *CB = dyn_cast<CallBase>(&I);
  if (!CB || isa<IntrinsicInst>(CB))
    return nullptr;
  return dyn_cast<Function>(CB->getCalledOperand()->stripPointerCasts());
}

bool isOpaqueCall(const Instruction &I) {
  const auto *CB = dyn_cast<CallBase>(&I);
  return CB && !isa<IntrinsicInst>(CB);
}

} // namespace

int64_t instrCost(const Instruction &I, const TargetTransformInfo &TTI) {
  if (isa<PHINode>(I) || isa<DbgInfoIntrinsic>(I))
    return 0;
  if (const auto *A = dyn_cast<AllocaInst>(&I); A && A->isStaticAlloca())
    return 0;
  if (const auto *II = dyn_cast<IntrinsicInst>(&I))
    if (II->isLifetimeStartOrEnd() || II->isAssumeLikeIntrinsic())
      return 0;
  InstructionCost C = TTI.getInstructionCost(&I, TargetTransformInfo::TCK_CodeSize);
  if (!C.isValid())
    return 1;
  return std::max<int64_t>(0, *C.getValue());
}


const BoundSummary *BoundPlacer::summary(const Function &F) const {
  auto It = Sum.find(&F);
  return It == Sum.end() ? nullptr : &It->second;
}

void BoundPlacer::markOpaque(const Function &F) {
  bool Out = true;
  if (F.isDeclaration()) {
    if (!Lib)
      Lib.emplace(Triple(F.getParent()->getTargetTriple()));
    TargetLibraryInfo TLI(*Lib);
    LibFunc LF;
    Out = !F.isIntrinsic() && !(TLI.getLibFunc(F, LF) && TLI.has(LF));
  }
  Sum[&F] = BoundSummary{None, static_cast<int64_t>(O.externCost), None, Out};
}

std::optional<int64_t>
BoundPlacer::checklessCall(const Instruction &I, int64_t C,
                           const DenseSet<const Function *> &Recursive) const {
  const Function *Callee = directCallee(I);
  if (Callee && Recursive.contains(Callee))
    return std::nullopt;
  if (const BoundSummary *S = Callee ? summary(*Callee) : nullptr) {
    if (S->P != None || S->T == None)
      return std::nullopt;
    return C + S->T;
  }
  return isOpaqueCall(I) ? C + static_cast<int64_t>(O.externCost) : C;
}

bool BoundPlacer::unrollSmallLoops(Function &F, const DenseSet<const Function *> &Recursive) {
  if (O.unroll < 2 || F.hasOptNone())
    return false;
  const TargetTransformInfo &TTI = FAM.getResult<TargetIRAnalysis>(F);
  LoopInfo &LI = FAM.getResult<LoopAnalysis>(F);
  ScalarEvolution &SE = FAM.getResult<ScalarEvolutionAnalysis>(F);
  DominatorTree &DT = FAM.getResult<DominatorTreeAnalysis>(F);
  AssumptionCache &AC = FAM.getResult<AssumptionAnalysis>(F);
  OptimizationRemarkEmitter ORE(&F);
  DenseSet<const BasicBlock *> VaOpen = noYieldBlocks(F, false);
  SmallVector<Loop *, 16> Inner;
  for (Loop *L : LI.getLoopsInPreorder())
    if (L->isInnermost())
      Inner.push_back(L);
  bool Changed = false;
  for (Loop *L : Inner) {
    const uint64_t TC = SE.getSmallConstantMaxTripCount(L);
    int64_t Body = 0;
    bool Ok = L->isSafeToClone();
    for (BasicBlock *B : L->blocks()) {
      Ok = Ok && !VaOpen.contains(B) && !B->isEHPad();
      for (Instruction &I : *B) {
        int64_t C = instrCost(I, TTI);
        if (isOpaqueCall(I)) {
          std::optional<int64_t> K = checklessCall(I, C, Recursive);
          Ok = Ok && K.has_value();
          C = K.value_or(C);
        }
        Body += C;
      }
    }
    Body = std::max<int64_t>(Body, 1);
    if (!Ok || Body > static_cast<int64_t>(O.unrollBody))
      continue;
    if (TC > 0 && static_cast<int64_t>(TC) <= static_cast<int64_t>(O.bound) / Body)
      continue; // collapsed anyway: no check inside
    unsigned K = static_cast<unsigned>(
        std::min<int64_t>(O.unroll, std::max<int64_t>(1, O.bound / Body)));
    if (K < 2 || (TC > 0 && TC < K))
      continue;
    simplifyLoop(L, &DT, &LI, &SE, &AC, nullptr, /*PreserveLCSSA=*/false);
    formLCSSARecursively(*L, DT, &LI, &SE);
    if (!L->isLoopSimplifyForm() || !L->isLCSSAForm(DT))
      continue;
    UnrollLoopOptions ULO;
    ULO.Count = K;
    ULO.Force = true;
    ULO.Runtime = false;
    ULO.AllowExpensiveTripCount = false;
    ULO.UnrollRemainder = false;
    ULO.ForgetAllSCEV = false;
    if (UnrollLoop(L, ULO, &LI, &SE, &DT, &AC, &TTI, &ORE, /*PreserveLCSSA=*/true) !=
        LoopUnrollResult::Unmodified)
      Changed = true;
  }
  if (Changed)
    FAM.invalidate(F, PreservedAnalyses::none());
  return Changed;
}

std::vector<YieldPoint> BoundPlacer::place(Function &F,
                                           const DenseSet<const Function *> &Recursive) {
  const int64_t Bound = O.bound;
  if (!O.dryRun)
    unrollSmallLoops(F, Recursive);
  const TargetTransformInfo &TTI = FAM.getResult<TargetIRAnalysis>(F);
  LoopInfo &LI = FAM.getResult<LoopAnalysis>(F);
  ScalarEvolution &SE = FAM.getResult<ScalarEvolutionAnalysis>(F);
  DenseSet<const BasicBlock *> VaOpen = noYieldBlocks(F, O.allowVarargRegions);

  ReversePostOrderTraversal<Function *> RPOT(&F);
  DenseMap<const BasicBlock *, unsigned> Rank;
  for (BasicBlock *B : RPOT)
    Rank.try_emplace(B, Rank.size());

  auto checklessCall = [&](const Instruction &I, int64_t C) {
    return this->checklessCall(I, C, Recursive);
  };

  // 1. Loops, innermost first: collapse those whose whole run fits in the bound.
  DenseMap<const Loop *, LoopFacts> Facts;
  SmallVector<Loop *, 16> Loops = LI.getLoopsInPreorder();
  for (auto LIt = Loops.rbegin(); LIt != Loops.rend(); ++LIt) {
    Loop *L = *LIt;
    LoopFacts &LF = Facts[L];
    LF.TripCount = SE.getSmallConstantMaxTripCount(L);
    bool Ok = LF.TripCount > 0;
    for (Loop *Sub : L->getSubLoops())
      Ok = Ok && Facts[Sub].Collapsed;
    if (!Ok)
      continue;
    // The costliest iteration: longest path from the header over the loop's blocks,
    // back edges to the header ignored, inner loops counted whole.
    DenseMap<const BasicBlock *, int64_t> Out;
    int64_t Iter = 0;
    for (BasicBlock *B : RPOT) {
      if (!L->contains(B))
        continue;
      int64_t D = 0;
      if (B != L->getHeader())
        for (BasicBlock *P : predecessors(B))
          if (L->contains(P) && Rank.lookup(P) < Rank.lookup(B))
            D = std::max(D, Out.lookup(P));
      if (Loop *In = LI.getLoopFor(B); In != L && In->getHeader() == B)
        D += (Facts[In].TripCount - 1) * Facts[In].Iteration;
      for (Instruction &I : *B) {
        int64_t C = instrCost(I, TTI);
        if (const auto *CB = dyn_cast<CallBase>(&I); CB && !isa<IntrinsicInst>(CB)) {
          std::optional<int64_t> K = checklessCall(I, C);
          if (!K) {
            Ok = false;
            break;
          }
          C = *K;
        }
        D += C;
      }
      if (!Ok)
        break;
      Out[B] = D;
      Iter = std::max(Iter, D);
    }
    LF.Iteration = std::max<int64_t>(Iter, 1);
    LF.Collapsed = Ok && LF.TripCount <= Bound / LF.Iteration;
  }

  // Whether F may call out of the module (Bound.h). A call in F's own cycle has checks
  // around it (below), so the cycle through it is bounded anyway.
  bool CallsOut = false;
  for (BasicBlock &B : F)
    for (Instruction &I : B) {
      const auto *CB = dyn_cast<CallBase>(&I);
      if (CallsOut || !CB || isa<IntrinsicInst>(CB) || CB->isInlineAsm())
        continue;
      const Function *Callee = directCallee(I);
      if (Callee && Recursive.contains(Callee))
        continue;
      const BoundSummary *S = Callee ? summary(*Callee) : nullptr;
      CallsOut = !S || S->Out;
    }

  // 2. The walk in reverse post order.
  std::vector<YieldPoint> Points;
  DenseMap<const BasicBlock *, Dist> Out;
  int64_t Pf = None, Tf = None, Sf = None;
  auto check = [&](BasicBlock &B, BasicBlock::iterator At, Dist &D) {
    Pf = std::max(Pf, D.E);
    D.E = None;
    D.C = 0;
    const bool Begin = At == beginPoint(B);
    const char *Pos = Begin ? "begin" : At == B.getTerminator()->getIterator() ? "end" : "mid";
    Points.push_back({&B, At, Begin, 0, 0, Pos});
  };

  for (BasicBlock *B : RPOT) {
    Dist D;
    if (B->isEntryBlock())
      D.E = 0;
    bool Retreat = false;
    for (BasicBlock *P : predecessors(B)) {
      auto R = Rank.find(P);
      if (R == Rank.end())
        continue;
      if (R->second >= Rank.lookup(B))
        Retreat = true;
      else
        D.join(Out.lookup(P));
    }
    const bool Eligible = eligibleBlock(*B, VaOpen);
    Loop *L = LI.getLoopFor(B);
    const bool Header = L && L->getHeader() == B;
    bool Collapsed = Header && Facts[L].Collapsed;
    if (Collapsed) {
      const LoopFacts &LF = Facts[L];
      if (D.max() + LF.TripCount * LF.Iteration > Bound) {
        // Check before the loop: at the end of its preheader (whose only successor is
        // this header), else give up collapsing it.
        BasicBlock *Pre = L->getLoopPreheader();
        if (Pre && Out.count(Pre) && eligibleBlock(*Pre, VaOpen)) {
          Dist PD = Out[Pre];
          check(*Pre, Pre->getTerminator()->getIterator(), PD);
          Out[Pre] = PD;
          D = PD;
        } else {
          Collapsed = false;
        }
      }
      if (Collapsed)
        D.add((LF.TripCount - 1) * LF.Iteration);
    }
    BasicBlock::iterator Bg = B->end();
    if (B->getFirstInsertionPt() != B->end())
      Bg = beginPoint(*B);
    for (auto It = B->begin(); It != Bg; ++It)
      D.add(instrCost(*It, TTI));
    // A function whose address is taken may be called back from code outside the bound
    // (qsort's comparator, a handler table): it checks on entry, so that a loop in the
    // outside code that calls it passes a check each time.
    // So does one that other modules may call, when it may call out (Bound.h).
    const bool Callback = B->isEntryBlock() && (F.hasAddressTaken() || (!F.hasLocalLinkage() && CallsOut));
    if ((Retreat && !Collapsed) || Callback) {
      if (Eligible)
        check(*B, Bg, D);
      else
        ++Violations;
    }

    bool CheckNext = false;
    for (auto It = Bg; It != B->end(); ++It) {
      Instruction &I = *It;
      int64_t C = instrCost(I, TTI);
      const Function *Callee = directCallee(I);
      const BoundSummary *S = Callee ? summary(*Callee) : nullptr;
      bool Recurse = Callee && Recursive.contains(Callee);
      int64_t Need = C;
      if (S && !Recurse)
        Need = C + std::max(S->P, S->T);
      else if (isOpaqueCall(I) && !Recurse)
        Need = C + static_cast<int64_t>(O.externCost);
      if ((CheckNext || Recurse || D.max() + Need > Bound) && D.max() > 0) {
        if (Eligible)
          check(*B, It, D);
        else if (!CheckNext && !Recurse)
          ++Violations;
      }
      CheckNext = false;
      if (S && !Recurse) {
        if (S->P != None)
          Pf = std::max(Pf, plus(D.E, C + S->P));
        Dist N;
        N.E = S->T != None ? plus(D.E, C + S->T) : None;
        N.C = std::max(S->T != None ? plus(D.C, C + S->T) : None, S->P != None ? S->S : None);
        D = N;
        continue;
      }
      D.add(Need);
      if (Recurse) { // the callee's distances are unknown: check again after it
        const auto *CB = cast<CallBase>(&I);
        auto Next = std::next(It);
        CheckNext = !(CB->isMustTailCall() || (Next != B->end() && isa<ReturnInst>(*Next) &&
                                               CB->isTailCall()));
      }
    }
    Out[B] = D;
    if (isa<ReturnInst>(B->getTerminator())) {
      Tf = std::max(Tf, D.E);
      Sf = std::max(Sf, D.C);
    }
  }
  Sum[&F] = BoundSummary{Pf, Tf, Sf, CallsOut};

  if (O.report) {
    IRLiveness Live(F);
    for (YieldPoint &P : Points)
      P.LiveBegin = P.LiveEnd = Live.liveBefore(*P.Block, P.At);
  }
  return Points;
}

} // namespace ito
