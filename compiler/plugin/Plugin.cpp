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
// The pass is required: it also runs on optnone functions (-O0).
// opt: -load-pass-plugin=ItoYield.so -passes=ito-yield.
#include "Insert.h"
#include "Options.h"
#include "Placement.h"
#include "Safety.h"

#include "llvm/IR/Module.h"
#include "llvm/IR/PassManager.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace {

constexpr const char *DoneAttr = "ito-yield-done";

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

struct ItoYieldPass : PassInfoMixin<ItoYieldPass> {
  PreservedAnalyses run(Module &M, ModuleAnalysisManager &) {
    const ito::YieldOptions O = ito::itoYieldOptions();
    ito::ModuleSafety Safety(M);
    std::optional<ito::YieldEmitter> Emitter;
    bool Changed = false;
    for (Function &F : M) {
      if (F.hasFnAttribute(DoneAttr))
        continue;
      StringRef Why = Safety.whyNot(F);
      if (!Why.empty()) {
        if (O.report && Why != "declaration")
          errs() << "ito-yield: " << F.getName() << ": skipped (" << Why << ")\n";
        continue;
      }
      std::vector<ito::YieldPoint> Points = ito::placeYieldPoints(F, O);
      if (O.report)
        for (const ito::YieldPoint &P : Points)
          errs() << "ito-yield: " << F.getName() << ": " << blockName(*P.Block) << " "
                 << (P.AtBegin ? "begin" : "end") << " live_begin=" << P.LiveBegin
                 << " live_end=" << P.LiveEnd << "\n";
      if (O.dryRun)
        continue;
      F.addFnAttr(DoneAttr);
      if (Points.empty())
        continue;
      if (!Emitter)
        Emitter.emplace(M, O.variant);
      for (const ito::YieldPoint &P : Points)
        Emitter->emit(P.At);
      Changed = true;
    }
    return Changed ? PreservedAnalyses::none() : PreservedAnalyses::all();
  }
  static bool isRequired() { return true; }
};

void registerCallbacks(PassBuilder &PB) {
  PB.registerOptimizerLastEPCallback([](ModulePassManager &MPM, OptimizationLevel) {
    MPM.addPass(ItoYieldPass());
  });
  PB.registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager &MPM, ArrayRef<PassBuilder::PipelineElement>) {
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
