// Insert.h: emitting one guarded yield point.
//
// The guard is the paper's predicated timer check in software:
//     %f = load volatile i32 from the TLS variable ito_coop_flag
//     br (%f != 0), label %ito.yield, label %rest     ; branch weights: unlikely
//   ito.yield:
//     <the yield>                                     ; the cold path
//     br label %rest
// so the fast path is one %fs-relative load and a not-taken branch. The TLS address is
// taken through llvm.threadlocal.address at the point itself: a ULT may resume on another
// worker after the call, so no address is reused across a point.
//
// With -ito-yield-check=budget the guard counts down instead of reading the timer's flag:
//     %b = load volatile i32 from the TLS variable ito_coop_budget
//     %l = sub i32 %b, W                 ; W: estimated instructions since the previous point
//     store volatile i32 %l              ; (Budget.h)
//     br (%l < 0), label %ito.yield, label %rest
// which the x86 back end folds into `addl $-W, %fs:ito_coop_budget@tpoff; js` (one
// read-modify-write of a line only this core writes); the runtime refills the word at
// every compiled yield (ito_coop_set_budget).
//
// The countdown in a register (-ito-yield-budget-reg, default on): since only the ULT's
// own code writes the word, a function may keep it in a register. The function copies
// the word into a local at its entry and after every call (the ULT may have moved, and
// the callee's points counted down), and back before every call and return; its points
// count down the local (`subl $W, %reg; js`: no memory access, so no store-to-load chain
// through the word in a tight loop); a yield writes the local to the word first and
// takes the refill back after. mem2reg then makes the local SSA values. A call directly
// followed by `ret` takes nothing back (it stays a tail call). Measured on the case study
// (cooperative.md): the read-modify-write in every block cost more than the flag load.
//
// The flag's TLS model (-ito-yield-tls): initial-exec (an external declaration reached
// through the GOT: the offset is loaded, usually once per function into a register, then
// `cmpl $0, %fs:(%reg)`), or local-exec (every instrumented module carries a weak, zero
// definition, so the executable defines the flag and libito's own definition is
// interposed by it; the check is one `cmpl $0, %fs:ito_coop_flag@tpoff` and holds no
// register; executables only).
//
// The yield on the cold path (-ito-yield-variant):
//   min   call preserve_none @ito_coop_yield       the caller spills its live registers,
//                                                  and must save rbx, rbp, r12-r15 in its
//                                                  prologue (paid on every call);
//   abi   call @ito_coop_yield_abi / full: @ito_coop_yield_full (C convention: the caller
//                                                  spills live caller-saved registers);
//   stub  call void asm "lea -128(%rsp),%rsp; call .Lito_ys_N; lea 128(%rsp),%rsp"
//         clobbering only memory and flags: to the register allocator nothing is live
//         across it that needs saving, so neither the hot path nor the prologue changes.
//         N numbers the sites of the module; ito-cc binds each .Lito_ys_N after code
//         generation to a stub that saves exactly the registers live there (see
//         compiler/itocc/stubs.py). The lea steps over the red zone.
// With -ito-yield-probe there is no guard and no yield: every point is
//     asm "lea -128(%rsp),%rsp; call ito_probe_hit@PLT; lea 128(%rsp),%rsp"
// (ito_probe_hit preserves every register), for measuring the intervals between checks.
//
// The contract with the runtime (declared here, no runtime header is included):
//   extern _Thread_local volatile int ito_coop_flag;
//   extern _Thread_local volatile int ito_coop_budget;          // -ito-yield-check=budget
//   __attribute__((preserve_none)) void ito_coop_yield(void);   // Variant::Min, stubs
//   void ito_coop_yield_abi(void);                              // Variant::Abi
//   void ito_coop_yield_full(void);                             // Variant::Full
#ifndef ITO_COMPILER_INSERT_H
#define ITO_COMPILER_INSERT_H

#include "Options.h"

#include "llvm/IR/BasicBlock.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"

namespace ito {

class YieldEmitter {
public:
  YieldEmitter(llvm::Module &M, const YieldOptions &O);
  // Splits the block at At and inserts the guard and the yield there; Weight is what a
  // budget check subtracts (Budget.h), unused by the flag check.
  void emit(llvm::BasicBlock::iterator At, unsigned Weight = 1);
  // The budget check with -ito-yield-budget-reg: called before F's first emit (notes F's
  // calls and returns, makes the slot the points count down) and after its last (the
  // word's copies in and out around them, then the slot becomes SSA registers). No-ops
  // otherwise, and for a function with invoke, callbr or musttail (its points count down
  // the word in memory).
  void beginFunction(llvm::Function &F);
  void endFunction(llvm::Function &F);

private:
  void emitStubCall(llvm::IRBuilder<> &B, const llvm::Twine &Target);
  static bool stubFits(const llvm::Function &F);

  llvm::GlobalVariable *Flag;
  llvm::FunctionCallee Yield;
  llvm::CallingConv::ID CC;
  Variant V;
  bool Probe;
  bool Budget, BudgetReg;
  unsigned Sites = 0;
  bool MinNeedsAbi = false; // variant min: this function calls the ABI yield (beginFunction)
  llvm::AllocaInst *Slot = nullptr; // the current function's countdown, while emitting
  llvm::SmallVector<llvm::CallInst *, 16> Calls;
  llvm::SmallVector<llvm::ReturnInst *, 4> Rets;
};

} // namespace ito

#endif
