/* cyg_profile.c: libito_regwin_hooks, the -finstrument-functions hooks of the
 * register-window emulation (include/ito/regwin.h).
 *
 * gcc and clang call __cyg_profile_func_enter/exit at every entry and exit of code built
 * with -finstrument-functions. These two names belong to the program, so libito does
 * not define them (it exports only ito_*); a program that wants its instrumented code to
 * run on the emulated register windows links this library, whose hooks hand every event
 * to libito. The hooks themselves must not be instrumented (they would call themselves).
 * Errors are counted by libito (ito_regwin_errors), so the results are dropped here. */
#include "ito/regwin.h"

#define NI __attribute__((no_instrument_function))

NI void __cyg_profile_func_enter(void *fn, void *site);
NI void __cyg_profile_func_exit(void *fn, void *site);

void __cyg_profile_func_enter(void *fn, void *site) { (void)ito_regwin_func_enter(fn, site); }

void __cyg_profile_func_exit(void *fn, void *site) { (void)ito_regwin_func_exit(fn, site); }
