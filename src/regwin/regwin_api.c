/* regwin_api.c: configuration, the registry of window files, counters and the
 * working-set policy.
 *
 * The installed configuration may change only while no file exists (files are created
 * by the runtime at ito_init, one per worker, and freed at ito_finalize), so a file's
 * scheme, window count and costs never change under it. The registry (a list under a
 * mutex) lets ito_regwin_read_counters sum over live files; a freed file's counters are
 * added to the retired totals so that they can still be read after ito_finalize. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "regwin_file.h"

static pthread_mutex_t g_mu = PTHREAD_MUTEX_INITIALIZER;
static ito_regwin_config_t g_cfg;        /* guarded by g_mu */
static bool g_cfg_set;                   /* g_cfg holds more than zeros */
static itoi_regwin_file_t *g_files;      /* guarded by g_mu */
static ito_regwin_counters_t g_retired;  /* guarded by g_mu */
static atomic_int g_working_set;         /* readable from anywhere */

_Static_assert(sizeof(ito_regwin_counters_t) % sizeof(uint64_t) == 0,
               "counters are summed as an array of uint64_t");

static void counters_add(ito_regwin_counters_t *to, const ito_regwin_counters_t *from)
{
    uint64_t *t = (uint64_t *)to;
    const uint64_t *s = (const uint64_t *)from;
    for (size_t i = 0; i < sizeof *to / sizeof(uint64_t); i++) t[i] += s[i];
}

static int config_valid(const ito_regwin_config_t *c)
{
    return c->scheme >= ITO_REGWIN_OFF && c->scheme <= ITO_REGWIN_SP &&
           c->windows >= ITO_REGWIN_MIN_WINDOWS && c->windows <= ITO_REGWIN_MAX_WINDOWS &&
           (c->working_set == 0 || c->working_set == 1);
}

int ito_regwin_config_init(ito_regwin_config_t *cfg)
{
    if (!cfg) return ITO_EINVAL;
    memset(cfg, 0, sizeof *cfg);
    cfg->scheme = ITO_REGWIN_OFF;
    cfg->windows = ITO_REGWIN_DEFAULT_WINDOWS;
    cfg->working_set = 0;
    itoi_regwin_cost_defaults(&cfg->costs);
    return ITO_OK;
}

/* g_mu held */
static void current_config(ito_regwin_config_t *out)
{
    if (!g_cfg_set) {
        ito_regwin_config_init(&g_cfg);
        g_cfg_set = true;
    }
    *out = g_cfg;
}

int ito_regwin_configure(const ito_regwin_config_t *cfg)
{
    if (!cfg || !config_valid(cfg)) return ITO_EINVAL;
    pthread_mutex_lock(&g_mu);
    int rc = ITO_ESTATE;
    if (!g_files) {
        g_cfg = *cfg;
        g_cfg_set = true;
        atomic_store(&g_working_set, cfg->working_set);
        rc = ITO_OK;
    }
    pthread_mutex_unlock(&g_mu);
    return rc;
}

int ito_regwin_get_config(ito_regwin_config_t *cfg)
{
    if (!cfg) return ITO_EINVAL;
    pthread_mutex_lock(&g_mu);
    current_config(cfg);
    pthread_mutex_unlock(&g_mu);
    return ITO_OK;
}

const char *ito_regwin_scheme_name(int scheme)
{
    switch (scheme) {
    case ITO_REGWIN_OFF: return "off";
    case ITO_REGWIN_NS: return "NS";
    case ITO_REGWIN_SNP: return "SNP";
    case ITO_REGWIN_SP: return "SP";
    default: return "?";
    }
}

itoi_regwin_file_t *itoi_regwin_file_new(int worker, const ito_regwin_config_t *cfg, int *err)
{
    ito_regwin_config_t c;
    int e = ITO_OK;
    itoi_regwin_file_t *f = NULL;
    pthread_mutex_lock(&g_mu);
    if (cfg)
        c = *cfg;
    else
        current_config(&c);
    if (!config_valid(&c) || worker < 0) {
        e = ITO_EINVAL;
    } else if (c.scheme != ITO_REGWIN_OFF) {
        f = aligned_alloc(64, (sizeof *f + 63) / 64 * 64);
        if (!f) {
            e = ITO_ENOMEM;
        } else {
            memset(f, 0, sizeof *f);
            atomic_init(&f->lock.v, 0);
            f->n = c.windows;
            f->scheme = c.scheme;
            f->worker = worker;
            f->rsv = -1;
            f->wim = f->n == 32 ? 0xffffffffu : (1u << f->n) - 1u;
            f->costs = c.costs;
            f->reg_next = g_files;
            g_files = f;
        }
    }
    pthread_mutex_unlock(&g_mu);
    if (err) *err = e;
    return f;
}

int itoi_regwin_file_free(itoi_regwin_file_t *f)
{
    if (!f) return ITO_EINVAL;
    itoi_regwin_lock(&f->lock);
    if (f->cur) {
        itoi_regwin_unlock(&f->lock);
        return ITO_ESTATE;
    }
    /* suspended threads keep their frames: move them to their memory save areas */
    for (int w = 0; w < f->n; w++)
        if (f->owner[w]) itoi_regwin_evict_locked(f, f->owner[w]);
    itoi_regwin_unlock(&f->lock);
    pthread_mutex_lock(&g_mu);
    for (itoi_regwin_file_t **p = &g_files; *p; p = &(*p)->reg_next)
        if (*p == f) {
            *p = f->reg_next;
            break;
        }
    counters_add(&g_retired, &f->ctr);
    pthread_mutex_unlock(&g_mu);
    free(f);
    return ITO_OK;
}

int itoi_regwin_file_worker(const itoi_regwin_file_t *f) { return f->worker; }
int itoi_regwin_file_windows(const itoi_regwin_file_t *f) { return f->n; }
int itoi_regwin_file_scheme(const itoi_regwin_file_t *f) { return f->scheme; }

void itoi_regwin_file_counters(itoi_regwin_file_t *f, ito_regwin_counters_t *out)
{
    itoi_regwin_lock(&f->lock);
    *out = f->ctr;
    itoi_regwin_unlock(&f->lock);
}

void itoi_regwin_file_reset_counters(itoi_regwin_file_t *f)
{
    itoi_regwin_lock(&f->lock);
    memset(&f->ctr, 0, sizeof f->ctr);
    itoi_regwin_unlock(&f->lock);
}

int ito_regwin_read_counters(ito_regwin_counters_t *out)
{
    if (!out) return ITO_EINVAL;
    pthread_mutex_lock(&g_mu);
    *out = g_retired;
    for (itoi_regwin_file_t *f = g_files; f; f = f->reg_next) {
        itoi_regwin_lock(&f->lock);
        counters_add(out, &f->ctr);
        itoi_regwin_unlock(&f->lock);
    }
    pthread_mutex_unlock(&g_mu);
    return ITO_OK;
}

int ito_regwin_reset_counters(void)
{
    pthread_mutex_lock(&g_mu);
    memset(&g_retired, 0, sizeof g_retired);
    for (itoi_regwin_file_t *f = g_files; f; f = f->reg_next) itoi_regwin_file_reset_counters(f);
    pthread_mutex_unlock(&g_mu);
    return ITO_OK;
}

/* ---- the working-set policy (sec. 4.6) ---- */

int itoi_regwin_working_set(void) { return atomic_load_explicit(&g_working_set, memory_order_relaxed); }

bool itoi_regwin_resident(const itoi_regwin_thread_t *t)
{
    return atomic_load_explicit(&((itoi_regwin_thread_t *)t)->file, memory_order_relaxed) != NULL;
}

int itoi_regwin_wake_front(const itoi_regwin_thread_t *t)
{
    if (!t || !itoi_regwin_working_set()) return -1;
    itoi_regwin_file_t *f = atomic_load_explicit(&((itoi_regwin_thread_t *)t)->file,
                                                 memory_order_relaxed);
    return f ? f->worker : -1;
}
