// The ito-cc wrapper: options, --ito-off, and link-only calls without the plugin.
// RUN: %itocc -O2 -S -emit-llvm %s -o - | %FileCheck %s --check-prefix=MIN
// RUN: %itocc --ito-variant=abi -O2 -S -emit-llvm %s -o - | %FileCheck %s --check-prefix=ABI
// RUN: %itocc --ito-variant=full --ito-policy=loops -O2 -S -emit-llvm %s -o - \
// RUN:   | %FileCheck %s --check-prefix=FULL
// RUN: %itocc --ito-off -O2 -S -emit-llvm %s -o - | %FileCheck %s --check-prefix=OFF
// RUN: %itocc --ito-report --ito-policy=distance --ito-distance=1000 -O2 -c %s -o %t.o 2>&1 \
// RUN:   | %FileCheck %s --check-prefix=REP
// Linking: no plugin flags, so no "unused argument" warning (fatal under -Werror).
// RUN: %itocc -Werror %t.o -o %t.exe -nostartfiles -Wl,--unresolved-symbols=ignore-all \
// RUN:   -Wl,-e,twice 2>&1 | %FileCheck %s --check-prefix=LINK --allow-empty
// RUN: ! %itocc --ito-bogus -c %s -o %t.o
// MIN: call preserve_nonecc void @ito_coop_yield()
// ABI: call void @ito_coop_yield_abi()
// FULL: call void @ito_coop_yield_full()
// OFF-NOT: ito_coop
// REP: ito-yield: twice: #0 begin
// LINK-NOT: warning
int twice(int n) {
    int s = 0;
    for (int i = 0; i < n; i++)
        s += 2 * i;
    return s;
}
