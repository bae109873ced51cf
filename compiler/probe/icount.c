/* icount.c: exact intervals between checks, in machine instructions (issue 12, deliverable 2).
 *
 *   icount OUT -- PROGRAM [ARGS...]
 *
 * Runs PROGRAM (a probe build: ito-cc --ito-probe, linked with libitoprobe.a) under ptrace
 * and single-steps its initial thread to the end, counting instructions; each time the thread
 * enters ito_probe_hit (one check passed) the count since the previous entry is recorded. At
 * exit it writes to OUT, one key=value per line: the instructions stepped, the checks, and the
 * minimum, percentiles and maximum of the intervals (each includes the probe's own
 * instructions and the site's lea/call/lea), and for the TOP longest intervals the two
 * sites (return addresses into PROGRAM, as offsets for addr2line) that begin and end them. Exact and independent of the machine's load,
 * but slow (a few microseconds per instruction): meant for short inputs. Only the initial
 * thread is followed, so the code under test must run there (the player's PLY_MODE 0).
 * ito_probe_hit's address: its offset in PROGRAM (from `nm`) plus the load base of
 * PROGRAM's first mapping (from /proc/PID/maps). */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/types.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>

static uint64_t symbol_offset(const char *exe, const char *sym)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "nm '%s'", exe);
    FILE *p = popen(cmd, "r");
    if (!p) return 0;
    char line[1024];
    uint64_t off = 0;
    while (fgets(line, sizeof line, p)) {
        char name[512], type;
        unsigned long long v;
        if (sscanf(line, "%llx %c %511s", &v, &type, name) == 3 && strcmp(name, sym) == 0) {
            off = v;
            break;
        }
    }
    pclose(p);
    return off;
}

/* The lowest address mapped from the executable (the PIE load base). */
static uint64_t load_base(pid_t pid)
{
    char path[64], exe[4096], line[4608];
    snprintf(path, sizeof path, "/proc/%d/exe", (int)pid);
    ssize_t n = readlink(path, exe, sizeof exe - 1);
    if (n <= 0) return 0;
    exe[n] = 0;
    snprintf(path, sizeof path, "/proc/%d/maps", (int)pid);
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    uint64_t base = 0;
    while (fgets(line, sizeof line, f)) {
        unsigned long long lo;
        if (strstr(line, exe) && sscanf(line, "%llx-", &lo) == 1) {
            base = lo;
            break;
        }
    }
    fclose(f);
    return base;
}

enum { TOP = 5 };

typedef struct longest {
    uint64_t len, from, to;
} longest_t;

/* Keep the TOP longest intervals, longest first. */
static void keep(longest_t *top, uint64_t len, uint64_t from, uint64_t to)
{
    if (len <= top[TOP - 1].len) return;
    int i = TOP - 1;
    while (i > 0 && top[i - 1].len < len) {
        top[i] = top[i - 1];
        i--;
    }
    top[i] = (longest_t){len, from, to};
}

static int cmp(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
    if (argc < 4 || strcmp(argv[2], "--") != 0) {
        fprintf(stderr, "usage: %s OUT -- PROGRAM [ARGS...]\n", argv[0]);
        return 2;
    }
    uint64_t off = symbol_offset(argv[3], "ito_probe_hit");
    if (!off) {
        fprintf(stderr, "icount: %s has no ito_probe_hit (not a probe build?)\n", argv[3]);
        return 2;
    }
    pid_t pid = fork();
    if (pid == 0) {
        ptrace(PTRACE_TRACEME, 0, NULL, NULL);
        execv(argv[3], argv + 3);
        _exit(127);
    }
    int st;
    if (waitpid(pid, &st, 0) < 0 || !WIFSTOPPED(st)) return 2; /* stopped at exec */
    uint64_t hit = load_base(pid) + off;
    ptrace(PTRACE_SETOPTIONS, pid, NULL, (void *)(long)PTRACE_O_EXITKILL);
    size_t cap = 1 << 20, n = 0;
    uint64_t *iv = malloc(cap * sizeof *iv);
    uint64_t steps = 0, last = 0, base = hit - off, site = 0;
    longest_t top[TOP] = {{0, 0, 0}};
    int seen = 0;
    if (!iv) return 2;
    for (;;) {
        if (ptrace(PTRACE_SINGLESTEP, pid, NULL, NULL) != 0) break;
        if (waitpid(pid, &st, 0) < 0 || WIFEXITED(st) || WIFSIGNALED(st)) break;
        if (WIFSTOPPED(st) && WSTOPSIG(st) != SIGTRAP) { /* pass other signals on */
            ptrace(PTRACE_SINGLESTEP, pid, NULL, (void *)(long)WSTOPSIG(st));
            continue;
        }
        steps++;
        errno = 0;
        long rip = ptrace(PTRACE_PEEKUSER, pid, (void *)offsetof(struct user_regs_struct, rip),
                          NULL);
        if (errno == 0 && (uint64_t)rip == hit) {
            struct user_regs_struct r;
            ptrace(PTRACE_GETREGS, pid, NULL, &r);
            errno = 0;
            uint64_t ret = (uint64_t)ptrace(PTRACE_PEEKDATA, pid, (void *)r.rsp, NULL);
            if (seen) keep(top, steps - last, site - base, ret - base);
            site = ret;
            if (seen) {
                if (n == cap) {
                    cap *= 2;
                    uint64_t *g = realloc(iv, cap * sizeof *iv);
                    if (!g) return 2;
                    iv = g;
                }
                iv[n++] = steps - last;
            }
            seen = 1;
            last = steps;
        }
    }
    FILE *o = fopen(argv[1], "w");
    if (!o) return 2;
    qsort(iv, n, sizeof *iv, cmp);
#define PCT(q) (n ? iv[(size_t)((q) * (double)(n - 1))] : 0)
    fprintf(o, "icount_instructions=%" PRIu64 "\nicount_checks=%zu\nicount_min=%" PRIu64
               "\nicount_p50=%" PRIu64 "\nicount_p90=%" PRIu64 "\nicount_p99=%" PRIu64
               "\nicount_p999=%" PRIu64 "\nicount_p9999=%" PRIu64 "\nicount_max=%" PRIu64 "\n",
            steps, n + (seen ? 1 : 0), PCT(0.0), PCT(0.5), PCT(0.9), PCT(0.99), PCT(0.999),
            PCT(0.9999), n ? iv[n - 1] : 0);
    for (int i = 0; i < TOP && top[i].len; i++)
        fprintf(o, "icount_top%d=%" PRIu64 " 0x%" PRIx64 " 0x%" PRIx64 "\n", i + 1, top[i].len,
                top[i].from, top[i].to);
    fclose(o);
    free(iv);
    return 0;
}
