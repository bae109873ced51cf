/* stack_exec_code.h: shared by test_stack_exec and test_stack_exec_refused. In a ULT,
 * machine code copied into a local array (on the ULT's stack) is called: `mov eax, 42;
 * ret`, what a GCC nested function's trampoline does in kind (code on the stack). */
#ifndef ITO_TEST_STACK_EXEC_CODE_H
#define ITO_TEST_STACK_EXEC_CODE_H
#include <stdint.h>
#include <string.h>

#include "ito/ito.h"

/* Copies `mov eax, 42; ret` into buf (on the caller's stack) and returns it as a function. */
static int (*stack_exec_place(volatile unsigned char *buf))(void)
{
    static const unsigned char code[] = {0xb8, 0x2a, 0x00, 0x00, 0x00, 0xc3};
    for (size_t i = 0; i < sizeof code; i++) buf[i] = code[i]; /* volatile stores: kept */
    int (*fn)(void);
    uintptr_t at = (uintptr_t)buf;
    memcpy(&fn, &at, sizeof fn); /* (object to function pointer) */
    return fn;
}

__attribute__((unused)) static int stack_exec_run(void)
{
    _Alignas(16) volatile unsigned char buf[16];
    return stack_exec_place(buf)();
}

__attribute__((unused)) static void *stack_exec_body(void *arg)
{
    *(int *)arg = stack_exec_run();
    return NULL;
}

/* The code on this ULT's stack, called by a second ULT (made after it: its stack is
 * usually the next slot, whose guard lies just above this stack's top), as a nested
 * function passed to ito_create is. */
static int (*stack_exec_fn)(void);
__attribute__((unused)) static void *stack_exec_caller(void *arg)
{
    *(int *)arg = stack_exec_fn();
    return NULL;
}

__attribute__((unused)) static void *stack_exec_cross(void *arg)
{
    _Alignas(16) volatile unsigned char buf[16];
    stack_exec_fn = stack_exec_place(buf);
    ito_thread_t t;
    if (ito_create(&t, stack_exec_caller, arg, NULL) != ITO_OK || ito_join(t, NULL) != ITO_OK) *(int *)arg = -1;
    return NULL;
}
#endif
