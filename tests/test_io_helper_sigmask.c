/* test_io_helper_sigmask: the sync backend's helper threads (src/wsc/helpers.c) block
 * every signal and are named "ito-helper". A helper used to be made with the mask of the
 * worker that needed it, as it was at that moment (the running ULT's blocks, usually
 * none), so the program's process-directed signals could run its handlers on a helper, in
 * the middle of a blocking call made for a ULT (found in review, 2026-12-06: SigBlk 0 on
 * every helper). Here a ULT on the sync backend makes a helper start (ito_openat of a
 * regular file and ito_fsync run on helpers); there must be a thread named so, and each
 * must block SIGINT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM and SIGCHLD. */
#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include "ito/ito.h"
#include "ito_test.h"

static char dir[] = "/tmp/ito_helper_sigmask_XXXXXX";

static void *body(void *arg)
{
    (void)arg;
    char path[96];
    snprintf(path, sizeof path, "%s/f", dir);
    int fd = ito_openat(AT_FDCWD, path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    CHECK(fd >= 0);
    CHECK_EQ(ito_write(fd, "x", 1), 1);
    CHECK_EQ(ito_fsync(fd), 0);
    CHECK_EQ(ito_close(fd), 0);
    unlink(path);
    return NULL;
}

/* The field `name` of /proc/self/task/<tid>/status, as text. */
static void task_field(const char *tid, const char *name, char *out, size_t n)
{
    char path[128], line[256];
    snprintf(path, sizeof path, "/proc/self/task/%s/status", tid);
    FILE *f = fopen(path, "r");
    CHECK(f != NULL);
    out[0] = 0;
    size_t len = strlen(name);
    while (fgets(line, sizeof line, f))
        if (!strncmp(line, name, len) && line[len] == ':') {
            snprintf(out, n, "%s", line + len + 1 + strspn(line + len + 1, " \t"));
            out[strcspn(out, "\n")] = 0;
        }
    fclose(f);
}

int main(void)
{
    CHECK(mkdtemp(dir) != NULL);
    setenv("ITO_WSC_BACKEND", "sync", 1);
    CHECK_OK(ito_init(&(ito_config_t){.workers = 1}));
    CHECK_EQ(ito_wsc_backend(), ITO_WSC_SYNC);
    ito_thread_t t;
    CHECK_OK(ito_create(&t, body, NULL, NULL));
    CHECK_OK(ito_join(t, NULL));

    int helpers = 0;
    DIR *d = opendir("/proc/self/task");
    CHECK(d != NULL);
    struct dirent *e;
    char self[32];
    snprintf(self, sizeof self, "%d", (int)getpid());
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || !strcmp(e->d_name, self)) continue;
        char name[64], blk[64];
        task_field(e->d_name, "Name", name, sizeof name);
        task_field(e->d_name, "SigBlk", blk, sizeof blk);
        unsigned long long m = strtoull(blk, NULL, 16);
        printf("thread %s: name '%s', SigBlk %s\n", e->d_name, name, blk);
        if (strcmp(name, "ito-helper") != 0) continue; /* a sanitizer's own thread */
        int sigs[] = {SIGINT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM, SIGCHLD};
        for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) CHECK((m >> (sigs[i] - 1)) & 1);
        helpers++;
    }
    closedir(d);
    CHECK(helpers >= 1);
    CHECK_OK(ito_finalize());
    unsetenv("ITO_WSC_BACKEND");
    rmdir(dir);
    TEST_DONE();
}
