// Options.h: the command-line options of the ito yield plugin (-mllvm -ito-yield-*).
//
// They are plain cl::opt globals defined in Options.cpp; the rest of the plugin reads them
// only through itoYieldOptions(), which snapshots them into one struct, so that the pass
// logic can be driven by a struct in the same way whether it runs under clang or opt.
#ifndef ITO_COMPILER_OPTIONS_H
#define ITO_COMPILER_OPTIONS_H

namespace ito {

enum class Policy { Every, Loops, Distance, Bound };
enum class Variant { Min, Abi, Full, Stub };
enum class Place { Auto, Begin, End };
enum class TlsModel { InitialExec, LocalExec };
enum class Check { Flag, Budget };

struct YieldOptions {
  Policy policy;
  unsigned distance; // Policy::Distance: IR instructions between points
  Variant variant;
  Place place;
  bool allowVarargRegions; // insert between va_start and va_end
  bool report;             // one line per point on stderr
  bool dryRun;             // decide (and report) but do not change the IR
  unsigned bound;          // Policy::Bound: estimated instructions between two checks
  unsigned externCost;     // Policy::Bound: what a call to unknown code counts
  TlsModel tls;            // how the flag is addressed
  bool probe;              // measurement build: every point calls ito_probe_hit, no guard
  unsigned unroll;         // Policy::Bound: unroll small loops of unknown trip count by this
  unsigned unrollBody;     // ... when one iteration costs at most this many instructions
  bool retakeTls;          // take errno's and TLS addresses anew after calls (ThreadAddr.h)
  Check check;             // what a point tests: the timer's flag or a local budget (Insert.h)
  bool budgetReg;          // budget check: the function keeps the countdown in a register
};

YieldOptions itoYieldOptions();

// The function attribute of a function the pass has done (Plugin.cpp), or made itself
// (ThreadAddr.cpp's helpers): it is not instrumented (again).
inline constexpr const char *DoneAttr = "ito-yield-done";

} // namespace ito

#endif
