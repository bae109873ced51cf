/* x87.c: long double (x87) code built by ito-cc (the probe of the full stub's x87 state).
 * At -O1 and above the loop keeps its partial sum on the x87 register stack across its
 * yield point; the stub variant binds such a site to the full stub (compiler/itocc/
 * stubs.py), which saves that stack with XSAVE and switches. XSAVE leaves the stack loaded,
 * so the next ULT on the worker must be given an empty one: otherwise each switch leaves
 * a few more registers in use, and after eight the x87 stack overflows (a NaN). */
#include <math.h>

long double x87_sum(int n)
{
    long double s = 0.0L;
    for (int i = 1; i <= n; i++) s += 1.0L / ((long double)i * i);
    return sqrtl(s * 6.0L);
}
