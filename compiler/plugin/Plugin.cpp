// Plugin.cpp: the ito yield pass and its registration with clang's and opt's pipelines.
//
// The pass is a module pass that works one function at a time: the things it needs
// besides the function (the ito_noyield annotations, signal handlers registered anywhere
// in the module, the declarations of the flag and of the yields) are module-level.
// For each function: decide every point on the unmodified IR first (Placement), then
// insert them all (Insert), so that decisions never see the pass's own blocks.
//
// When it runs: last in the optimisation pipeline at -O1..-O3 (OptimizerLast), so that
// points sit in the final loop structure and do not block vectorisation or unrolling;
// at -O0 clang also builds a pipeline that invokes OptimizerLast. A function attribute
// "ito-yield-done" keeps a function from being instrumented twice should both hooks run.
// Each instrumented function then takes its thread-specific addresses (errno, TLS) anew
// after every point where the ULT may have moved (ThreadAddr.h).
// The pass is required: it also runs on optnone functions (-O0).
// opt: -load-pass-plugin=ItoYield.so -passes=ito-yield.
#include "Bound.h"
#include "Budget.h"
#include "Insert.h"
#include "Options.h"
#include "Placement.h"
#include "Safety.h"
#include "ThreadAddr.h"

#include "llvm/ADT/SCCIterator.h"
#include "llvm/Analysis/CallGraph.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace {

// The block's name, or "#<position>" when clang discarded value names.
std::string blockName(const BasicBlock &B) {
  if (B.hasName())
    return B.getName().str();
  unsigned N = 0;
  for (const BasicBlock &X : *B.getParent()) {
    if (&X == &B)
      break;
    ++N;
  }
  return "#" + std::to_string(N);
}

// The functions of M in the order the pass visits them, each with the functions of its
// call-graph cycle (empty when it is in none). Policy::Bound needs callees before
// callers (bottom-up strongly connected components); the other policies use module order.
std::vector<std::pair<Function *, DenseSet<const Function *>>> visitOrder(Module &M,
                                                                          bool BottomUp) {
  std::vector<std::pair<Function *, DenseSet<const Function *>>> Order;
  if (!BottomUp) {
    for (Function &F : M)
      Order.push_back({&F, {}});
    return Order;
  }
  CallGraph CG(M);
  for (auto I = scc_begin(&CG); !I.isAtEnd(); ++I) {
    DenseSet<const Function *> Cycle;
    if (I.hasCycle())
      for (CallGraphNode *N : *I)
        if (N->getFunction())
          Cycle.insert(N->getFunction());
    for (CallGraphNode *N : *I)
      if (Function *F = N->getFunction())
        Order.push_back({F, Cycle});
  }
  return Order;
}

struct ItoYieldPass : PassInfoMixin<ItoYieldPass> {
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &MAM) {
    const ito::YieldOptions O = ito::itoYieldOptions();
    ito::ModuleSafety Safety(M);
    FunctionAnalysisManager &FAM =
        MAM.getResult<FunctionAnalysisManagerModuleProxy>(M).getManager();
    const bool Bounded = O.policy == ito::Policy::Bound;
    ito::BoundPlacer Placer(O, FAM);
    std::optional<ito::YieldEmitter> Emitter;
    bool Changed = false;
    for (auto &[FP, Cycle] : visitOrder(M, Bounded)) {
      Function &F = *FP;
      if (F.hasFnAttribute(ito::DoneAttr))
        continue;
      StringRef Why = Safety.whyNot(F);
      if (!Why.empty()) {
        if (O.report && Why != "declaration")
          errs() << "ito-yield: " << F.getName() << ": skipped (" << Why << ")\n";
        Placer.markOpaque(F);
        // Not instrumented, but its callees may still switch (a function that calls
        // setjmp, an ito_noyield one): its thread-specific addresses are taken anew all
        // the same. They were not: such a function kept a thread_local's address from
        // before its loop (found by an outside tester, 2026-12-05).
        if ((Why == "returns_twice" || Why == "ito_noyield") && O.retakeTls && !O.probe && !O.dryRun &&
            ito::retakeThreadAddresses(F)) {
          FAM.invalidate(F, PreservedAnalyses::none());
          Changed = true;
        }
        continue;
      }
      std::vector<ito::YieldPoint> Points =
          Bounded ? Placer.place(F, Cycle) : ito::placeYieldPoints(F, O);
      std::vector<unsigned> Weights;
      if (O.check == ito::Check::Budget && !O.probe && !Points.empty())
        Weights = ito::budgetWeights(F, Points, FAM.getResult<TargetIRAnalysis>(F),
                                     FAM.getResult<BlockFrequencyAnalysis>(F),
                                     FAM.getResult<BranchProbabilityAnalysis>(F));
      if (O.report) {
        for (size_t K = 0; K < Points.size(); K++) {
          const ito::YieldPoint &P = Points[K];
          errs() << "ito-yield: " << F.getName() << ": " << blockName(*P.Block) << " "
                 << (P.Pos ? P.Pos : P.AtBegin ? "begin" : "end") << " live_begin=" << P.LiveBegin
                 << " live_end=" << P.LiveEnd;
          if (!Weights.empty())
            errs() << " budget=" << Weights[K];
          errs() << "\n";
        }
        if (const ito::BoundSummary *S = Bounded ? Placer.summary(F) : nullptr)
          errs() << "ito-yield: " << F.getName() << ": summary P=" << S->P << " T=" << S->T
                 << " S=" << S->S << "\n";
      }
      if (O.dryRun)
        continue;
      F.addFnAttr(ito::DoneAttr);
      bool FChanged = false;
      if (!Points.empty()) {
        if (!Emitter)
          Emitter.emplace(M, O);
        Emitter->beginFunction(F);
        for (size_t K = 0; K < Points.size(); K++)
          Emitter->emit(Points[K].At, Weights.empty() ? 1 : Weights[K]);
        Emitter->endFunction(F);
        FChanged = true;
      }
      // Also where F has no point: its calls may switch (see ThreadAddr.h).
      if (O.retakeTls && !O.probe && ito::retakeThreadAddresses(F))
        FChanged = true;
      if (FChanged) {
        FAM.invalidate(F, PreservedAnalyses::none());
        Changed = true;
      }
    }
    if (O.report && Bounded && Placer.violations())
      errs() << "ito-yield: " << M.getName() << ": " << Placer.violations()
             << " excess(es) over the bound in blocks that may hold no check\n";
    return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
  }
  static bool isRequired() { return true; }
};

// Before any optimisation: thread identities that glibc declares const (ThreadAddr.h).
struct ItoThreadIdPass : PassInfoMixin<ItoThreadIdPass> {
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &) {
    if (!ito::itoYieldOptions().retakeTls || !ito::unconstThreadIdentity(M))
      return PreservedAnalyses::all();
    return PreservedAnalyses::none();
  }
  static bool isRequired() { return true; }
};

void registerCallbacks(PassBuilder &PB) {
  PB.registerPipelineStartEPCallback([](ModulePassManager &MPM, OptimizationLevel) {
    MPM.addPass(ItoThreadIdPass());
  });
  PB.registerOptimizerLastEPCallback([](ModulePassManager &MPM, OptimizationLevel) {
    MPM.addPass(ItoYieldPass());
  });
  PB.registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager &MPM, ArrayRef<PassBuilder::PipelineElement>) {
        if (Name == "ito-thread-id") {
          MPM.addPass(ItoThreadIdPass());
          return true;
        }
        if (Name != "ito-yield")
          return false;
        MPM.addPass(ItoYieldPass());
        return true;
      });
}

} // namespace

extern "C" LLVM_ATTRIBUTE_WEAK LLVM_ATTRIBUTE_VISIBILITY_DEFAULT PassPluginLibraryInfo
llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "ItoYield", "0.1", registerCallbacks};
}
