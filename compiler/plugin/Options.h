// Options.h: the command-line options of the ito yield plugin (-mllvm -ito-yield-*).
//
// They are plain cl::opt globals defined in Options.cpp; the rest of the plugin reads them
// only through itoYieldOptions(), which snapshots them into one struct, so that the pass
// logic can be driven by a struct in the same way whether it runs under clang or opt.
#ifndef ITO_COMPILER_OPTIONS_H
#define ITO_COMPILER_OPTIONS_H

namespace ito {

enum class Policy { Every, Loops, Distance };
enum class Variant { Min, Abi, Full };
enum class Place { Auto, Begin, End };

struct YieldOptions {
  Policy policy;
  unsigned distance; // Policy::Distance: IR instructions between points
  Variant variant;
  Place place;
  bool allowVarargRegions; // insert between va_start and va_end
  bool report;             // one line per point on stderr
  bool dryRun;             // decide (and report) but do not change the IR
};

YieldOptions itoYieldOptions();

} // namespace ito

#endif
