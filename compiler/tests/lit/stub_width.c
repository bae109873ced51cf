// ito-cc --ito-variant=stub with AVX: a site with no live vector register in a function
// that uses ymm and one with the same live GPRs in a function that does not share one
// stub (the set's width matters only for vector registers), not two of the same name.
// (Before: "error: symbol '__ito_ys_rax_rbx_rdi_r12_r13_r14_r15' is already defined".)
// RUN: %itocc --ito-variant=stub -O2 -mavx2 -c %s -o %t.o
// RUN: %itocc --ito-variant=stub -O3 -mavx -c %s -o %t.o
#include <stdatomic.h>
static _Atomic long shared_counter;
static __thread long tlcount;
float vec(int n, float k) {   /* vectorised: ymm registers */
  float a[1024], b[1024];
  for (int i = 0; i < 1024; i++) { a[i] = i * 0.5f + k; b[i] = 1024 - i; }
  float s = 0;
  for (int r = 0; r < n; r++) for (int i = 0; i < 1024; i++) { a[i] = a[i] * 0.999f + b[i] * 0.001f; s += a[i]; }
  return s;
}
long atom(int n) { for (int i = 0; i < n; i++) { atomic_fetch_add(&shared_counter, 1); tlcount++; } return n; }
