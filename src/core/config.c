/* config.c: every ITO_* environment variable of the runtime, validated in one place.
 *
 * ito_init calls itoi_env_load() before it starts anything: a variable with a value
 * outside its accepted set makes ito_init fail with ITO_EINVAL and one line on stderr
 * naming the variable, its value and what is accepted. So does an unknown name in a
 * family the runtime owns (ITO_WSC_*, ITO_FAULT_*, ITO_FINALIZE_*), which is most likely a
 * typo (the families: ITO_WSC_*, ITO_FAULT_*, ITO_FINALIZE_*, ITO_FP_*, ITO_COOP_*). Other ITO_* names (the lab's ITO_BUILD_DIR, ...) are left alone. The table below
 * is the single list; docs/ENVIRONMENT.md describes each entry and must follow it. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/syscall.h>
#include <unistd.h>
#if defined(ITOI_HAVE_URING)
#include <linux/io_uring.h>
#endif

#include "ito/coop.h"
#include "itoi.h"

itoi_env_t itoi_env;

typedef struct var {
    const char *name;
    long min, max;              /* numbers: the accepted range */
    const char *const *words;   /* words: the accepted values (NULL: a number) */
    long *dest;                 /* the number, or the index of the word; left alone if unset */
} var_t;

static const char *const backends[] = {"sync", "uring", NULL}; /* = ITO_WSC_SYNC, ITO_WSC_URING */
static const char *const fp_restores[] = {"auto", "always", "lazy", NULL}; /* = ITOA_FP_* */
static const char *const affinities[] = {"off", "on", NULL};

static const var_t vars[] = {
    {"ITO_WORKERS", 1, ITOI_MAX_WORKERS, NULL, &itoi_env.workers},
    {"ITO_WSC_BACKEND", 0, 0, backends, &itoi_env.wsc_backend},
    {"ITO_WSC_THRESHOLD", 1, 64, NULL, &itoi_env.wsc_threshold},
    {"ITO_WSC_LATENCY_US", 0, 1000000, NULL, &itoi_env.wsc_latency_us},
    {"ITO_FINALIZE_GRACE_MS", 0, 3600000, NULL, &itoi_env.finalize_grace_ms},
    {"ITO_FAULT_MMAP", 0, 1000000000, NULL, &itoi_env.fault_mmap},
    {"ITO_FAULT_MALLOC", 0, 1000000000, NULL, &itoi_env.fault_malloc},
    {"ITO_FAULT_REARM", 0, 1000000000, NULL, &itoi_env.fault_rearm},
    {"ITO_FAULT_URING_CANCEL", 0, 1000000000, NULL, &itoi_env.fault_uring_cancel},
    {"ITO_FAULT_WAITPOST", 0, 1000000000, NULL, &itoi_env.fault_waitpost},
    {"ITO_FAULT_IOCONT", 0, 1000000000, NULL, &itoi_env.fault_iocont},
    {"ITO_FAULT_HELPER", 0, 1000000000, NULL, &itoi_env.fault_helper},
    {"ITO_FAULT_CANCEL_MISS", 0, 1000000000, NULL, &itoi_env.fault_cancel_miss},
    {"ITO_FP_RESTORE", 0, 0, fp_restores, &itoi_env.fp_restore},
    {"ITO_AFFINITY", 0, 0, affinities, &itoi_env.affinity},
    {"ITO_COOP_BUDGET", 1, ITO_COOP_BUDGET_MAX, NULL, &itoi_env.coop_budget},
    {"ITO_COOP_SLICE_NS", 0, (long)ITO_COOP_SLICE_MAX_NS, NULL, &itoi_env.coop_slice_ns},
};
#define NVARS (sizeof vars / sizeof vars[0])

/* Families whose every name must be in the table. */
static const char *const owned[] = {"ITO_WSC_", "ITO_FAULT_", "ITO_FINALIZE_", "ITO_FP_", "ITO_COOP_"};

static int bad(const var_t *v, const char *val)
{
    if (v->words) {
        fprintf(stderr, "ito: %s='%s' is not valid; accepted values:", v->name, val);
        for (const char *const *w = v->words; *w; w++) fprintf(stderr, " %s", *w);
        fprintf(stderr, "\n");
    } else {
        fprintf(stderr, "ito: %s='%s' is not valid; accepted: a whole number from %ld to %ld\n", v->name, val,
                v->min, v->max);
    }
    return ITO_EINVAL;
}

static int parse(const var_t *v, const char *val)
{
    if (v->words) {
        for (long i = 0; v->words[i]; i++)
            if (!strcmp(val, v->words[i])) {
                *v->dest = i;
                return ITO_OK;
            }
        return bad(v, val);
    }
    char *end;
    errno = 0;
    long n = strtol(val, &end, 10);
    /* digits only (a '-' only before a nonzero digit, for a negative bound): strtol would
     * also skip leading white space and take a '+' or a "-0", which ENVIRONMENT.md says are
     * refused (until 2026-12-05 "-0" passed as 0; found by an API audit) */
    bool digits = (val[0] >= '0' && val[0] <= '9') || (v->min < 0 && val[0] == '-' && val[1] >= '1' && val[1] <= '9');
    if (!digits || *end || errno || n < v->min || n > v->max) return bad(v, val);
    *v->dest = n;
    return ITO_OK;
}

/* ITO_WSC_BACKEND=uring is a demand: fail at ito_init if io_uring cannot be had. */
static int check_uring(void)
{
#if defined(ITOI_HAVE_URING)
    struct io_uring_params p;
    memset(&p, 0, sizeof p);
    long fd = syscall(__NR_io_uring_setup, 1, &p);
    if (fd >= 0) {
        /* and entered, and its eventfd registered, as a worker's ring will be: a filter
         * may deny io_uring_enter or io_uring_register alone */
        long rc = syscall(__NR_io_uring_enter, (int)fd, 0, 0, IORING_ENTER_GETEVENTS, NULL, 0);
        int efd = rc < 0 ? -1 : eventfd(0, EFD_CLOEXEC);
        if (rc >= 0) rc = efd < 0 ? -1 : syscall(__NR_io_uring_register, (int)fd, IORING_REGISTER_EVENTFD, &efd, 1);
        int e = errno;
        if (efd >= 0) close(efd);
        close((int)fd);
        if (rc >= 0) return ITO_OK;
        errno = e;
    }
    /* Out of descriptors or memory is not a refusal: ito_init's ITO_ENOMEM (thread.h),
     * as when its own descriptors run out (the probe needs two). */
    if (errno == EMFILE || errno == ENFILE || errno == ENOMEM) return ITO_ENOMEM;
    fprintf(stderr, "ito: ITO_WSC_BACKEND=uring, but the kernel refuses io_uring (%s); unset it to fall back "
                    "to the sync backend\n", strerror(errno));
#else
    fprintf(stderr, "ito: ITO_WSC_BACKEND=uring, but this libito was built without liburing\n");
#endif
    return ITO_ENOSYS;
}

int itoi_env_load(void)
{
    itoi_env = (itoi_env_t){.workers = 0, .wsc_backend = -1, .wsc_threshold = 0, .wsc_latency_us = -1,
                            .finalize_grace_ms = -1, .fault_mmap = 0, .fault_malloc = 0, .fault_rearm = 0, .fault_uring_cancel = 0, .fault_waitpost = 0, .fault_iocont = 0, .fault_helper = 0, .fault_cancel_miss = 0, .fp_restore = 0, .affinity = 0,
                            .coop_budget = -1, .coop_slice_ns = -1};
    for (size_t i = 0; i < NVARS; i++) {
        const char *val = getenv(vars[i].name);
        if (val && parse(&vars[i], val) != ITO_OK) return ITO_EINVAL;
    }
    if (itoi_env.wsc_backend == 1 /* ITO_WSC_URING */) {
        int rc = check_uring();
        if (rc != ITO_OK) return rc;
    }
    extern char **environ;
    for (char **e = environ; e && *e; e++) {
        for (size_t f = 0; f < sizeof owned / sizeof owned[0]; f++) {
            if (strncmp(*e, owned[f], strlen(owned[f])) != 0) continue;
            size_t len = strcspn(*e, "=");
            bool known = false;
            for (size_t i = 0; i < NVARS && !known; i++)
                known = strlen(vars[i].name) == len && !strncmp(*e, vars[i].name, len);
            if (!known) {
                fprintf(stderr, "ito: unknown variable %.*s (names beginning with %s are the runtime's; "
                                "see docs/ENVIRONMENT.md)\n", (int)len, *e, owned[f]);
                return ITO_EINVAL;
            }
        }
    }
    return ITO_OK;
}
