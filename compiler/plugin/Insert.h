// Insert.h: emitting one guarded yield point.
//
// The guard is the paper's predicated timer check in software:
//     %f = load volatile i32 from the initial-exec TLS variable ito_coop_flag
//     br (%f != 0), label %ito.yield, label %rest     ; branch weights: unlikely
//   ito.yield:
//     call <cc> void @ito_coop_yield[_abi|_full]()    ; nounwind
//     br label %rest
// so the fast path is one %fs-relative load and a not-taken branch. The TLS address is
// taken through llvm.threadlocal.address at the point itself: a ULT may resume on another
// worker after the call, so no address is reused across a point.
//
// The contract with the runtime (declared here, no runtime header is included):
//   extern _Thread_local volatile int ito_coop_flag;
//   __attribute__((preserve_none)) void ito_coop_yield(void);   // Variant::Min
//   void ito_coop_yield_abi(void);                              // Variant::Abi
//   void ito_coop_yield_full(void);                             // Variant::Full
#ifndef ITO_COMPILER_INSERT_H
#define ITO_COMPILER_INSERT_H

#include "Options.h"

#include "llvm/IR/BasicBlock.h"
#include "llvm/IR/Module.h"

namespace ito {

class YieldEmitter {
public:
  YieldEmitter(llvm::Module &M, Variant V);
  // Splits the block at At and inserts the guard and the call there.
  void emit(llvm::BasicBlock::iterator At);

private:
  llvm::GlobalVariable *Flag;
  llvm::FunctionCallee Yield;
  llvm::CallingConv::ID CC;
};

} // namespace ito

#endif
