/* regwin_mt.c: two workers (pthreads), each with its own window file, share a pool of
 * threads that migrate between them; a third pthread keeps asking the working-set
 * question and reading the counters. Each thread's values are checked against its own
 * model (a stack of frames written with values derived from the thread and depth). This
 * is the test for the locking (run it under TSan). */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

#include "regwin_testlib.h"

#define NT 6
#define ROUNDS 3000

typedef struct item {
    itoi_regwin_thread_t t;
    int depth;
    uint64_t tag;
} item_t;

static item_t items[NT];
static int pool[NT], npool;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static itoi_regwin_file_t *files[2];
static atomic_int done;

static uint64_t val(const item_t *it, int depth, int reg) { return it->tag * 1000003u + (uint64_t)depth * 131u + (uint64_t)reg; }

static item_t *take(void)
{
    item_t *it = NULL;
    pthread_mutex_lock(&mu);
    if (npool > 0) it = &items[pool[--npool]];
    pthread_mutex_unlock(&mu);
    return it;
}

static void give(item_t *it)
{
    pthread_mutex_lock(&mu);
    pool[npool++] = (int)(it - items);
    pthread_mutex_unlock(&mu);
}

static void *worker(void *arg)
{
    int w = (int)(intptr_t)arg;
    itoi_regwin_file_t *f = files[w];
    uint64_t rng = 0x1234567u + (uint64_t)w;
    item_t *cur = NULL;
    for (int round = 0; round < ROUNDS; round++) {
        item_t *next = take();
        if (!next) continue;
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        int kind = (rng >> 40) % 5 == 0 ? ITOI_REGWIN_FLUSH : ITOI_REGWIN_LEAVE;
        CHECK_OK(itoi_regwin_switch(f, cur ? &cur->t : NULL, &next->t, kind));
        if (cur) give(cur);
        cur = next;
        /* the resumed thread finds its top frame's locals */
        for (int r = 0; r < 8; r++) CHECK_EQ(itoi_regwin_get(f, ITOI_REGWIN_L0 + r), val(cur, cur->depth, r));
        int moves = 1 + (int)((rng >> 33) % 12);
        for (int k = 0; k < moves; k++) {
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
            if ((rng >> 50) % 2 == 0 || cur->depth == 0) {
                CHECK_OK(itoi_regwin_save(f));
                cur->depth++;
                for (int r = 0; r < 8; r++) itoi_regwin_set(f, ITOI_REGWIN_L0 + r, val(cur, cur->depth, r));
            } else {
                CHECK_OK(itoi_regwin_restore(f));
                cur->depth--;
                for (int r = 0; r < 8; r++) CHECK_EQ(itoi_regwin_get(f, ITOI_REGWIN_L0 + r), val(cur, cur->depth, r));
            }
        }
        tl_check(f);
    }
    if (cur) {
        CHECK_OK(itoi_regwin_switch(f, &cur->t, NULL, ITOI_REGWIN_LEAVE));
        give(cur);
    }
    return NULL;
}

static void *observer(void *arg)
{
    (void)arg;
    long fronts = 0;
    while (!atomic_load(&done)) {
        for (int i = 0; i < NT; i++) fronts += itoi_regwin_wake_front(&items[i].t) >= 0;
        ito_regwin_counters_t c;
        CHECK_OK(ito_regwin_read_counters(&c));
    }
    return (void *)fronts;
}

int main(void)
{
    const int schemes[] = {ITO_REGWIN_NS, ITO_REGWIN_SNP, ITO_REGWIN_SP};
    for (int s = 0; s < 3; s++) {
        ito_regwin_config_t cfg;
        CHECK_OK(ito_regwin_config_init(&cfg));
        cfg.scheme = schemes[s];
        cfg.windows = 32; /* room to stay resident, so that threads migrate */
        cfg.working_set = 1;
        CHECK_OK(ito_regwin_configure(&cfg));
        CHECK_OK(ito_regwin_reset_counters());
        for (int w = 0; w < 2; w++) CHECK((files[w] = itoi_regwin_file_new(w, NULL, NULL)) != NULL);
        npool = 0;
        for (int i = 0; i < NT; i++) {
            tl_thread(&items[i].t);
            items[i].depth = 0;
            items[i].tag = (uint64_t)i + 1;
            pool[npool++] = i;
        }
        /* the root frame's locals, set through a first run on file 0 */
        for (int i = 0; i < NT; i++) {
            CHECK_OK(itoi_regwin_switch(files[0], NULL, &items[i].t, ITOI_REGWIN_LEAVE));
            for (int r = 0; r < 8; r++) itoi_regwin_set(files[0], ITOI_REGWIN_L0 + r, val(&items[i], 0, r));
            CHECK_OK(itoi_regwin_switch(files[0], &items[i].t, NULL, ITOI_REGWIN_FLUSH));
        }
        atomic_store(&done, 0);
        pthread_t wt[2], ot;
        CHECK(pthread_create(&ot, NULL, observer, NULL) == 0);
        for (int w = 0; w < 2; w++) CHECK(pthread_create(&wt[w], NULL, worker, (void *)(intptr_t)w) == 0);
        for (int w = 0; w < 2; w++) CHECK(pthread_join(wt[w], NULL) == 0);
        atomic_store(&done, 1);
        CHECK(pthread_join(ot, NULL) == 0);
        ito_regwin_counters_t c;
        CHECK_OK(ito_regwin_read_counters(&c));
        CHECK(c.switches > 100);
        /* how often threads moved between the files depends on the OS's interleaving of
         * the two workers; the migration path itself is tested in regwin_alloc */
        printf("%s: %llu switches, %llu migrations\n", ito_regwin_scheme_name(schemes[s]),
               (unsigned long long)c.switches, (unsigned long long)c.migrations);
        for (int w = 0; w < 2; w++) CHECK_OK(itoi_regwin_file_free(files[w]));
        for (int i = 0; i < NT; i++) CHECK_OK(itoi_regwin_thread_fini(&items[i].t));
    }
    TEST_DONE();
}
