/* parallel_for: a parallel loop with ito_create_many.
 *
 * The loop  for i in [0, N): out[i] = f(i)  is cut into TASKS chunks, and one call of
 * ito_create_many makes a ULT per chunk. All of them share the same "common" argument
 * (the loop's bounds and arrays, copied once by the runtime); each finds its chunk from
 * its index (ito_spawn_index). The CHUNK scheme lets every worker build its share of the
 * threads from a local copy of the message, so creation itself runs in parallel.
 * Main joins them all and checks the result.
 *
 *   parallel_for           prints "parallel_for: 1000000 elements in 64 tasks, checksum 333332833333500000"
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <ito/ito.h>

#define N 1000000
#define TASKS 64

typedef struct loop {
    size_t n, tasks;
    uint64_t *out;
} loop_t;

static uint64_t f(uint64_t i) { return i * i; }

/* The body of one task: its chunk of [0, n). `arg` is the runtime's copy of the loop. */
static void *task(void *arg)
{
    const loop_t *l = arg;
    size_t k;
    ito_spawn_index(&k);
    size_t lo = l->n * k / l->tasks, hi = l->n * (k + 1) / l->tasks;
    for (size_t i = lo; i < hi; i++) l->out[i] = f(i);
    return NULL;
}

int main(void)
{
    ito_init(NULL);
    loop_t loop = {N, TASKS, calloc(N, sizeof(uint64_t))};
    ito_thread_t *handles = calloc(TASKS, sizeof *handles);

    ito_spawn_attr_t attr;
    ito_spawn_attr_init(&attr);
    attr.scheme = ITO_SPAWN_CHUNK;
    int rc = ito_create_many(TASKS, task, &loop, sizeof loop, NULL, handles, NULL, &attr);
    for (int i = 0; rc == ITO_OK && i < TASKS; i++) ito_join(handles[i], NULL);

    uint64_t sum = 0;
    for (size_t i = 0; i < N; i++) sum += loop.out[i];
    free(loop.out);
    free(handles);
    ito_finalize();
    uint64_t want = (uint64_t)(N - 1) * N * (2 * (uint64_t)N - 1) / 6;
    printf("parallel_for: %d elements in %d tasks, checksum %llu%s\n", N, TASKS, (unsigned long long)sum,
           rc == ITO_OK && sum == want ? "" : " (WRONG)");
    return rc == ITO_OK && sum == want ? 0 : 1;
}
