/* sanitizer.h: the fiber annotations that let ASan and TSan follow ito's stack
 * switches. Every switch between two contexts goes through itoi_san_before() on the
 * old stack and itoi_san_after() once the old context runs again. Empty in normal
 * builds. */
#ifndef ITO_CORE_SANITIZER_H
#define ITO_CORE_SANITIZER_H

#include <stddef.h>

#if defined(ITOI_ASAN)
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif
#if defined(ITOI_TSAN)
#include <sanitizer/tsan_interface.h>
#endif

/* A context as the sanitizers see it: its stack bounds and its TSan fiber. */
typedef struct itoi_san_ctx {
    const void *stack_lo;
    size_t stack_size;
    void **asan_fake;     /* where this context keeps its ASan fake-stack handle */
    void *tsan_fiber;
} itoi_san_ctx_t;

/* TSan runs a signal handler late, at the next interceptor of the fiber (ULT) that was
 * current when the signal came, which by then may have switched away and back: the tick
 * handler's store to the worker thread's ito_coop_flag is attributed to one fiber and the
 * next ULT's check of the same thread-local word to another, a race in TSan's model that
 * is none on the thread (handler and ULTs share the kernel thread). The handler's flag
 * accesses are left out of TSan's view. */
#if defined(ITOI_TSAN)
void AnnotateIgnoreReadsBegin(const char *file, int line);
void AnnotateIgnoreReadsEnd(const char *file, int line);
void AnnotateIgnoreWritesBegin(const char *file, int line);
void AnnotateIgnoreWritesEnd(const char *file, int line);
#define ITOI_SAN_IGNORE_BEGIN() (AnnotateIgnoreReadsBegin(__FILE__, __LINE__), AnnotateIgnoreWritesBegin(__FILE__, __LINE__))
#define ITOI_SAN_IGNORE_END() (AnnotateIgnoreWritesEnd(__FILE__, __LINE__), AnnotateIgnoreReadsEnd(__FILE__, __LINE__))
#else
#define ITOI_SAN_IGNORE_BEGIN() ((void)0)
#define ITOI_SAN_IGNORE_END() ((void)0)
#endif

static inline void itoi_san_before(void **from_fake, int from_dying, const itoi_san_ctx_t *to)
{
#if defined(ITOI_ASAN)
    __sanitizer_start_switch_fiber(from_dying ? NULL : from_fake, to->stack_lo, to->stack_size);
#else
    (void)from_fake; (void)from_dying;
#endif
#if defined(ITOI_TSAN)
    __tsan_switch_to_fiber(to->tsan_fiber, 0);
#endif
    (void)to;
}

static inline void itoi_san_after(void *fake)
{
#if defined(ITOI_ASAN)
    __sanitizer_finish_switch_fiber(fake, NULL, NULL);
#else
    (void)fake;
#endif
}

static inline void itoi_san_unpoison(void *p, size_t n)
{
#if defined(ITOI_ASAN)
    ASAN_UNPOISON_MEMORY_REGION(p, n);
#else
    (void)p; (void)n;
#endif
}

#endif
