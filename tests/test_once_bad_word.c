/* test_once_bad_word: ito_once refuses storage whose state word alone, or whose lock word
 * alone, holds a value no once object holds (once.c; sync.h: ITO_EINVAL), the other word
 * being valid: the state checked without the lock would run fn on garbage (and mark it
 * done), the lock checked without the state would spin for ever on a lock that reads as
 * held. test_sync_marks fills both words at once (0xff, random bytes), so either check
 * alone passed it. Layout as in once.c: the state (an int) first, the lock word next. */
#include <stdint.h>
#include <string.h>

#include "ito/ito.h"
#include "ito_test.h"

static int runs;
static void fn(void) { runs++; }

int main(void)
{
    CHECK_OK(ito_init(NULL));
    ito_once_t o;
    int words[2];
    /* a state no once object holds (NEW 0, RUNNING 1, DONE 2), an unlocked lock */
    for (int bad = 3; bad < 40; bad += 7) {
        memset(&o, 0, sizeof o);
        words[0] = bad;
        words[1] = 0;
        memcpy(&o, words, sizeof words);
        CHECK_EQ(ito_once(&o, fn), ITO_EINVAL);
    }
    words[0] = -1;
    memcpy(&o, words, sizeof words);
    CHECK_EQ(ito_once(&o, fn), ITO_EINVAL);
    CHECK_EQ(runs, 0);
    /* a NEW state, a lock word no spinlock holds (0 or 1) */
    for (int bad = 2; bad < 40; bad += 7) {
        memset(&o, 0, sizeof o);
        words[0] = 0;
        words[1] = bad;
        memcpy(&o, words, sizeof words);
        CHECK_EQ(ito_once(&o, fn), ITO_EINVAL);
    }
    CHECK_EQ(runs, 0);
    /* and a zeroed one is a NEW once object */
    memset(&o, 0, sizeof o);
    CHECK_OK(ito_once(&o, fn));
    CHECK_OK(ito_once(&o, fn));
    CHECK_EQ(runs, 1);
    CHECK_OK(ito_finalize());
    TEST_DONE();
}
