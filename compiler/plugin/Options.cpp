// Options.cpp: the -mllvm -ito-yield-* options and their snapshot (see Options.h).
#include "Options.h"

#include "llvm/Support/CommandLine.h"

using namespace llvm;

namespace {

cl::opt<ito::Policy> PolicyOpt(
    "ito-yield-policy", cl::desc("which basic blocks get a yield point"),
    cl::init(ito::Policy::Every),
    cl::values(clEnumValN(ito::Policy::Every, "every", "every basic block (the paper)"),
               clEnumValN(ito::Policy::Loops, "loops",
                          "function entries and loop headers (targets of retreating edges)"),
               clEnumValN(ito::Policy::Distance, "distance",
                          "entries, loop headers, and wherever a path has run "
                          "-ito-yield-distance IR instructions since the last point"),
               clEnumValN(ito::Policy::Bound, "bound",
                          "as few points as keep every path between two of them under "
                          "-ito-yield-bound estimated instructions (see Bound.h)")));

cl::opt<unsigned> BoundOpt("ito-yield-bound",
                           cl::desc("policy=bound: the bound B, in estimated machine "
                                    "instructions between two checks"),
                           cl::init(5000));

cl::opt<unsigned> ExternCostOpt("ito-yield-extern-cost",
                                cl::desc("policy=bound: instructions a call to code outside "
                                         "the module (or an indirect call) counts"),
                                cl::init(0));

cl::opt<ito::TlsModel> TlsOpt(
    "ito-yield-tls", cl::desc("how the check addresses ito_coop_flag"),
    cl::init(ito::TlsModel::InitialExec),
    cl::values(clEnumValN(ito::TlsModel::InitialExec, "initial-exec",
                          "through the GOT: any executable or shared object"),
               clEnumValN(ito::TlsModel::LocalExec, "local-exec",
                          "a weak definition in the executable, one %fs-relative compare "
                          "(executables only)")));

cl::opt<unsigned> UnrollOpt("ito-yield-unroll",
                            cl::desc("policy=bound: unroll innermost loops of unknown trip count "
                                     "by this factor (exit tests kept in every copy), so that "
                                     "their header check runs once per that many iterations; "
                                     "1: off (the default: measured, it cost more than "
                                     "the checks it saved)"),
                            cl::init(1));

cl::opt<unsigned> UnrollBodyOpt("ito-yield-unroll-body",
                                cl::desc("policy=bound: unroll only loops whose iteration costs "
                                         "at most this many estimated instructions"),
                                cl::init(48));

cl::opt<bool> ProbeOpt("ito-yield-probe",
                       cl::desc("measurement: every point calls ito_probe_hit (all registers "
                                "preserved), no guard, no yield"),
                       cl::init(false));

cl::opt<unsigned> DistanceOpt("ito-yield-distance",
                              cl::desc("instructions between points for policy=distance"),
                              cl::init(200));

cl::opt<ito::Variant> VariantOpt(
    "ito-yield-variant", cl::desc("which yield the guard calls"), cl::init(ito::Variant::Min),
    cl::values(clEnumValN(ito::Variant::Min, "min",
                          "ito_coop_yield, preserve_none: the caller spills its live values"),
               clEnumValN(ito::Variant::Abi, "abi", "ito_coop_yield_abi, C calling convention"),
               clEnumValN(ito::Variant::Full, "full",
                          "ito_coop_yield_full, C convention, saves every GPR and the vector state"),
               clEnumValN(ito::Variant::Stub, "stub",
                          "an inline-asm call to a per-site stub that saves exactly the "
                          "registers live there (bound by ito-cc after code generation)")));

cl::opt<ito::Place> PlaceOpt(
    "ito-yield-place", cl::desc("where in a chosen block the point goes"),
    cl::init(ito::Place::Auto),
    cl::values(clEnumValN(ito::Place::Auto, "auto",
                          "beginning or end, whichever has fewer live values (ties: beginning)"),
               clEnumValN(ito::Place::Begin, "begin", "always the beginning"),
               clEnumValN(ito::Place::End, "end", "always the end")));

cl::opt<bool> VarargsOpt("ito-yield-allow-va-regions",
                         cl::desc("also insert points between va_start and va_end"),
                         cl::init(false));

cl::opt<bool> ReportOpt("ito-yield-report",
                        cl::desc("print one line per yield point on stderr"), cl::init(false));

cl::opt<bool> DryRunOpt("ito-yield-dry-run",
                        cl::desc("decide and report the points, do not insert them"),
                        cl::init(false));

cl::opt<bool> RetakeTlsOpt("ito-yield-retake-tls",
                           cl::desc("take errno's and thread-local addresses anew after every "
                                    "call or point where the ULT may have moved (default on)"),
                           cl::init(true));

cl::opt<ito::Check> CheckOpt(
    "ito-yield-check", cl::desc("what a yield point tests"), cl::init(ito::Check::Flag),
    cl::values(clEnumValN(ito::Check::Flag, "flag",
                          "ito_coop_flag, which a timer sets (one load and a branch)"),
               clEnumValN(ito::Check::Budget, "budget",
                          "a countdown of estimated instructions in the TLS word "
                          "ito_coop_budget: each point subtracts what ran since the previous "
                          "one and yields when it goes negative (no timer, no line moving "
                          "between cores; see Budget.h)")));

cl::opt<bool> BudgetRegOpt("ito-yield-budget-reg",
                           cl::desc("check=budget: each function keeps the countdown in a "
                                    "register between its calls (default on; off: every "
                                    "point is a read-modify-write of the TLS word)"),
                           cl::init(true));

} // namespace

ito::YieldOptions ito::itoYieldOptions() {
  return {PolicyOpt, DistanceOpt, VariantOpt, PlaceOpt,  VarargsOpt, ReportOpt,
          DryRunOpt, BoundOpt,    ExternCostOpt, TlsOpt, ProbeOpt, UnrollOpt, UnrollBodyOpt,
          RetakeTlsOpt, CheckOpt, BudgetRegOpt};
}
