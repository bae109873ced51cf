/* test_init_bad_config_msg: ito_init refuses a bad configuration with ITO_EINVAL and one
 * line on stderr that says which field (thread.h: "ITO_EINVAL for a bad configuration or
 * environment variable (one line on stderr says which)"). Before the fix a bad
 * ito_config_t (workers -1 or 257, stack_size 1 or SIZE_MAX) said nothing; only the
 * environment variables had their line. Found by an API audit, 2026-12-05 (h60b). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

/* ito_init(cfg) with stderr caught in a pipe: its return code, and what it wrote. */
static int init_caught(const ito_config_t *cfg, char *out, size_t len)
{
    int p[2];
    CHECK(pipe2(p, O_NONBLOCK) == 0);
    fflush(stderr);
    int saved = dup(2);
    CHECK(saved >= 0 && dup2(p[1], 2) == 2);
    int rc = ito_init(cfg);
    fflush(stderr);
    CHECK(dup2(saved, 2) == 2);
    close(saved);
    close(p[1]);
    ssize_t n = read(p[0], out, len - 1);
    out[n > 0 ? n : 0] = '\0';
    close(p[0]);
    return rc;
}

static int lines(const char *s)
{
    int n = 0;
    for (; *s; s++) n += *s == '\n';
    return n;
}

int main(void)
{
    char msg[1024];
    const ito_config_t bad[] = {
        {.workers = -1}, {.workers = 257}, {.workers = INT32_MIN},
        {.workers = 1, .stack_size = 1}, {.workers = 1, .stack_size = ITO_STACK_MAX + 1},
        {.workers = 1, .stack_size = SIZE_MAX},
    };
    const char *field[] = {"workers", "workers", "workers", "stack_size", "stack_size", "stack_size"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK_EQ(init_caught(&bad[i], msg, sizeof msg), ITO_EINVAL);
        CHECK_EQ(lines(msg), 1);
        CHECK(strstr(msg, field[i]) != NULL);
        CHECK_EQ(ito_initialized(), 0);
    }
    /* a good configuration says nothing and starts */
    CHECK_EQ(init_caught(&(ito_config_t){.workers = 1, .stack_size = ITO_STACK_MIN}, msg, sizeof msg), ITO_OK);
    CHECK_EQ(msg[0], '\0');
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
