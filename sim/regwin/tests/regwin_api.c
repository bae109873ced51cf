/* regwin_api.c: the public part (include/ito/regwin.h) -- configuration and its error
 * codes, the counters summed over files (live and freed), the working-set decision. */
#include <string.h>

#include "regwin_testlib.h"

static void config(void)
{
    ito_regwin_config_t c, d;
    CHECK_OK(ito_regwin_config_init(&c));
    CHECK_EQ(c.scheme, ITO_REGWIN_OFF);
    CHECK_EQ(c.windows, 8);
    CHECK_EQ(c.working_set, 0);
    CHECK_EQ(c.costs.overflow_trap, 55);
    CHECK_EQ(c.costs.underflow_trap, 49);
    CHECK_EQ(c.costs.underflow_inplace_extra, 12);
    CHECK_EQ(ito_regwin_config_init(NULL), ITO_EINVAL);
    CHECK_EQ(ito_regwin_configure(NULL), ITO_EINVAL);
    CHECK_OK(ito_regwin_get_config(&d)); /* nothing installed yet: the defaults */
    CHECK_EQ(d.scheme, ITO_REGWIN_OFF);
    CHECK_EQ(d.windows, 8);
    d = c;
    d.scheme = 4;
    CHECK_EQ(ito_regwin_configure(&d), ITO_EINVAL);
    d = c;
    d.windows = 3;
    CHECK_EQ(ito_regwin_configure(&d), ITO_EINVAL);
    d.windows = 33;
    CHECK_EQ(ito_regwin_configure(&d), ITO_EINVAL);
    d = c;
    d.working_set = 2;
    CHECK_EQ(ito_regwin_configure(&d), ITO_EINVAL);

    /* OFF: no file is made, and that is not an error */
    int err = -100;
    CHECK(itoi_regwin_file_new(0, NULL, &err) == NULL);
    CHECK_EQ(err, ITO_OK);
    d = c;
    d.windows = 2;
    CHECK(itoi_regwin_file_new(0, &d, &err) == NULL);
    CHECK_EQ(err, ITO_EINVAL);

    c.scheme = ITO_REGWIN_SP;
    c.windows = 12;
    c.working_set = 1;
    c.costs.overflow_trap = 100;
    CHECK_OK(ito_regwin_configure(&c));
    CHECK_OK(ito_regwin_get_config(&d));
    CHECK_EQ(d.scheme, ITO_REGWIN_SP);
    CHECK_EQ(d.windows, 12);
    CHECK_EQ(d.working_set, 1);
    CHECK_EQ(d.costs.overflow_trap, 100);
    CHECK_EQ(itoi_regwin_working_set(), 1);
    CHECK(strcmp(ito_regwin_scheme_name(ITO_REGWIN_SNP), "SNP") == 0);
    CHECK(strcmp(ito_regwin_scheme_name(ITO_REGWIN_NS), "NS") == 0);
    CHECK(strcmp(ito_regwin_scheme_name(ITO_REGWIN_SP), "SP") == 0);
    CHECK(strcmp(ito_regwin_scheme_name(ITO_REGWIN_OFF), "off") == 0);
    CHECK(strcmp(ito_regwin_scheme_name(9), "?") == 0);
}

/* Two files from the installed configuration; counters, working set, ESTATE. */
static void files_and_counters(void)
{
    int err;
    itoi_regwin_file_t *f = itoi_regwin_file_new(0, NULL, &err), *g = itoi_regwin_file_new(1, NULL, &err);
    CHECK(f && g);
    CHECK_EQ(itoi_regwin_file_windows(f), 12);
    CHECK_EQ(itoi_regwin_file_scheme(g), ITO_REGWIN_SP);
    CHECK_EQ(itoi_regwin_file_worker(g), 1);
    ito_regwin_config_t c;
    CHECK_OK(ito_regwin_config_init(&c));
    CHECK_EQ(ito_regwin_configure(&c), ITO_ESTATE); /* files exist */
    CHECK_OK(ito_regwin_reset_counters());

    itoi_regwin_thread_t a, b, x;
    tl_thread(&a);
    tl_thread(&b);
    tl_thread(&x);
    CHECK_EQ(itoi_regwin_wake_front(&a), -1); /* no windows: back of the queue */
    CHECK_OK(itoi_regwin_switch(f, NULL, &a, ITOI_REGWIN_LEAVE));
    tl_saves(f, 20); /* 12 windows: 9 overflows */
    CHECK_OK(itoi_regwin_switch(f, &a, &b, ITOI_REGWIN_LEAVE));
    CHECK_EQ(itoi_regwin_wake_front(&a), 0); /* windows in worker 0's file: front */
    CHECK_OK(itoi_regwin_switch(g, NULL, &x, ITOI_REGWIN_LEAVE));
    CHECK_OK(itoi_regwin_save(g));
    CHECK_OK(itoi_regwin_restore(g));
    CHECK_OK(itoi_regwin_switch(g, &x, NULL, ITOI_REGWIN_LEAVE));
    CHECK_EQ(itoi_regwin_wake_front(&x), 1);

    ito_regwin_counters_t s;
    CHECK_OK(ito_regwin_read_counters(&s));
    CHECK_EQ(s.saves, 21);
    CHECK_EQ(s.restores, 1);
    CHECK_EQ(s.overflow_traps, 20 - (12 - 2));
    CHECK_EQ(s.trap_cycles, 100 * s.overflow_traps); /* the configured trap cost */
    CHECK_EQ(s.switches, 3);
    CHECK_EQ(s.switch_hist[0][1], 2); /* a and x start */
    CHECK_EQ(s.switch_hist[2][1], 1); /* a filled the file: b's window and PRW spill it twice */
    CHECK_EQ(s.switch_cycles_lo, 2 * 136 + 220);
    CHECK_EQ(s.switch_cycles_hi, 2 * 141 + 237);
    CHECK_EQ(ito_regwin_read_counters(NULL), ITO_EINVAL);

    /* a flushed thread has no windows: back of the queue again */
    CHECK_OK(itoi_regwin_switch(f, &b, &a, ITOI_REGWIN_FLUSH));
    CHECK_OK(itoi_regwin_switch(f, &a, &b, ITOI_REGWIN_FLUSH));
    CHECK_EQ(itoi_regwin_wake_front(&a), -1);
    CHECK(!itoi_regwin_resident(&a));

    /* counters survive the files */
    CHECK_OK(itoi_regwin_switch(f, &b, NULL, ITOI_REGWIN_EXIT));
    CHECK_OK(itoi_regwin_file_free(f));
    CHECK_OK(itoi_regwin_file_free(g));
    ito_regwin_counters_t t;
    CHECK_OK(ito_regwin_read_counters(&t));
    CHECK_EQ(t.switches, 5);
    CHECK_EQ(t.switches_flush, 2);
    CHECK_EQ(t.thread_exits, 1);
    CHECK_EQ(t.saves, 21);
    CHECK_OK(ito_regwin_reset_counters());
    CHECK_OK(ito_regwin_read_counters(&t));
    CHECK_EQ(t.saves, 0);
    CHECK_EQ(t.switches, 0);

    /* working set off: always the back */
    CHECK_OK(ito_regwin_configure(&c));
    CHECK_EQ(itoi_regwin_working_set(), 0);
    CHECK_EQ(itoi_regwin_wake_front(&x), -1);
    CHECK_OK(itoi_regwin_thread_fini(&a));
    CHECK_OK(itoi_regwin_thread_fini(&b));
    CHECK_OK(itoi_regwin_thread_fini(&x));
    CHECK_EQ(itoi_regwin_wake_front(NULL), -1);
}

int main(void)
{
    config();
    files_and_counters();
    TEST_DONE();
}
