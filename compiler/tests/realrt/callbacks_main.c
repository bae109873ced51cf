/* callbacks_main.c: the harness of callbacks.c, built without the plugin. 8 ULTs (unbound,
 * 2 workers, FLAG preemption every 100 us) run cb_round() 20 times each, sleeping between
 * rounds so that the workers go idle and take each other's ULTs. Checks that every line of
 * the shared stream is "<i:i>" and every line of the cookie stream "line i", 160 each, and
 * prints "ok lines L switches N". A yield point inside the callbacks interleaved the lines
 * or hung in dl_iterate_phdr (callbacks.sh runs it under timeout). */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "realrt_harness.h"

int cb_setup(FILE *shared);
long cb_round(int id);
extern FILE *cb_cookie;
extern char cb_text[];

#define ULTS 8
#define ROUNDS 20

static void *run(void *arg)
{
    int me = (int)(intptr_t)arg;
    for (int r = 0; r < ROUNDS; r++) {
        if (cb_round(me) < 1) abort();
        ito_sleep_ns(100000 * (1 + me % 3));
    }
    return NULL;
}

/* how many lines of text match fmt ("<%d:%d>%n" or "line %d%n"); -1 if one does not */
static int check(char *text, int pair)
{
    int lines = 0;
    for (char *s = strtok(text, "\n"); s; s = strtok(NULL, "\n")) {
        int a = 0, b = 0, n = 0;
        int ok = pair ? sscanf(s, "<%d:%d>%n", &a, &b, &n) == 2 && a == b : sscanf(s, "line %d%n", &a, &n) == 1;
        if (!ok || s[n] != '\0' || a < 0 || a >= ULTS) {
            fprintf(stderr, "callbacks: bad line '%s'\n", s);
            return -1;
        }
        lines++;
    }
    return lines;
}

int main(void)
{
    char *shared_text = NULL;
    size_t shared_len = 0;
    FILE *shared = open_memstream(&shared_text, &shared_len);
    if (!shared || cb_setup(shared) != 0) return 2;
    ito_preempt_stats_t st;
    if (realrt_run(2, ULTS, run, &st) != 0) return 2;
    if (fclose(shared) != 0 || fclose(cb_cookie) != 0) return 2;
    int a = check(shared_text, 1), b = check(cb_text, 0);
    if (a != ULTS * ROUNDS || b != ULTS * ROUNDS) {
        printf("bad lines %d %d, want %d\n", a, b, ULTS * ROUNDS);
        return 1;
    }
    printf("ok lines %d switches %llu\n", a + b, (unsigned long long)st.preemptions);
    free(shared_text);
    return 0;
}
