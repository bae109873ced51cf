/* hello.c: a C program outside ito's tree, built against an installed ito (pkg-config,
 * find_package, ito-cc) by tests/install/install_check.sh. Eight ULTs square their
 * argument; main sums the results. Prints "ok" and exits 0 when all is right. */
#include <ito/ito.h>
#include <stdio.h>
#include <string.h>

static void *square(void *arg)
{
    long v = (long)arg;
    return (void *)(v * v);
}

int main(void)
{
    if (strcmp(ito_version(NULL, NULL, NULL), ITO_VERSION_STRING) != 0) {
        fprintf(stderr, "hello-c: library %s, headers %s\n", ito_version(NULL, NULL, NULL),
                ITO_VERSION_STRING);
        return 1;
    }
    int rc = ito_init(NULL);
    if (rc != ITO_OK) {
        fprintf(stderr, "hello-c: ito_init: %s\n", ito_strerror(rc));
        return 1;
    }
    ito_thread_t t[8];
    for (long i = 0; i < 8; i++)
        if ((rc = ito_create(&t[i], square, (void *)i, NULL)) != ITO_OK) {
            fprintf(stderr, "hello-c: ito_create: %s\n", ito_strerror(rc));
            return 1;
        }
    long sum = 0;
    for (int i = 0; i < 8; i++) {
        void *r;
        if (ito_join(t[i], &r) != ITO_OK) return 1;
        sum += (long)r;
    }
    if (ito_finalize() != ITO_OK || sum != 140) {
        fprintf(stderr, "hello-c: sum %ld (want 140)\n", sum);
        return 1;
    }
    printf("ok hello-c (ito %s)\n", ITO_VERSION_STRING);
    return 0;
}
