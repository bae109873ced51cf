/* fake_flag.c: the flag of the fake runtime. ITO_FAKE_FLAG=1 in the environment keeps it
 * set for the whole run (every guard then calls the yield); the number of yields taken is
 * printed on stderr at exit. Compiled without the plugin. */
#include <stdio.h>
#include <stdlib.h>

_Thread_local volatile int ito_coop_flag;
long ito_fake_yields;

__attribute__((constructor)) static void fake_flag_init(void)
{
    const char *e = getenv("ITO_FAKE_FLAG");
    ito_coop_flag = e && atoi(e) != 0;
}

__attribute__((destructor)) static void fake_flag_report(void)
{
    fprintf(stderr, "yields %ld\n", ito_fake_yields);
}
