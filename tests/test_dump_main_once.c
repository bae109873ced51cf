/* test_dump_main_once: ito_dump_threads lists main exactly once (dump.c lists it first,
 * then skips it in the walk of all descriptors), and its closing count "N ULT(s)" equals
 * the rows listed: from main, from another ULT and from a foreign thread, with ULTs
 * created and joined before (recycled descriptors). test_dump checks that main is there,
 * not how often. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ito/ito.h"
#include "ito_test.h"

static void check_dump(void)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    CHECK(f != NULL);
    CHECK_OK(ito_dump_threads(f));
    fclose(f);
    int mains = 0, rows = 0, in_table = 0;
    long said = -1;
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n")) {
        if (!strncmp(line, "  id ", 5)) {
            in_table = 1;
            continue;
        }
        if (!in_table) continue;
        if (line[0] == ' ') {
            rows++;
            char id[32], name[64];
            if (sscanf(line, "%31s %63s", id, name) == 2 && !strcmp(name, "main")) mains++;
        } else {
            said = strtol(line, NULL, 10);
        }
    }
    CHECK_EQ(mains, 1);
    CHECK_EQ(said, rows);
    free(text);
}

static void *nothing(void *arg) { return arg; }
static void *dumper(void *arg)
{
    check_dump();
    return arg;
}

int main(void)
{
    CHECK_OK(ito_init(NULL));
    for (int i = 0; i < 100; i++) {
        ito_thread_t t;
        CHECK_OK(ito_create(&t, nothing, NULL, NULL));
        CHECK_OK(ito_join(t, NULL));
    }
    check_dump();
    ito_thread_t t;
    CHECK_OK(ito_create(&t, dumper, NULL, NULL));
    CHECK_OK(ito_join(t, NULL));
    pthread_t pt;
    CHECK_EQ(pthread_create(&pt, NULL, dumper, NULL), 0);
    CHECK_EQ(pthread_join(pt, NULL), 0);
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
