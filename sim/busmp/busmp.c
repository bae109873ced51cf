/* busmp.c: the machine's processors and its gang scheduler with the two policies.
 *
 * A time slice of gang g starting at `now` (every live process resumes at now):
 *   - processors advance window by window; an event READ/WRITE costs 1 cycle plus the cache
 *     penalty, OPS its count, BEGIN/END mark the unpreemptable region (plus signal_cost each
 *     under PSAFE), BARRIER waits until every live process of the gang arrived (released at
 *     the latest arrival clock), EXIT ends the process;
 *   - at the quantum end (now + Q):
 *       PREEMPT, or PSAFE with no process inside a region: the slice ends (END_QUANTUM);
 *       PSAFE with a process inside a region: the switch is delayed ("pending").  With
 *       pending = STOP, processes outside a region stop at once and a process inside one runs
 *       on and stops right after its withdraw; with pending = GANG every process runs on (and
 *       may enter another region) until a withdraw leaves no process inside a region, which
 *       stops them all.  When all have stopped the slice ends at the clock of the last
 *       withdraw (END_DELAYED; with GANG, processes that ran ahead within the window count
 *       up to their clocks).  If the delay reaches bound_quanta * Q the gang is preempted anyway
 *       (END_FORCED, involuntary); its processes stay inside their regions, so they are
 *       unpreemptable again as soon as the gang runs again (the paper's Sect. 3);
 *   - the slice also ends when the gang's last process exits (END_FINISHED).
 * delay = slice end - quantum end.  The delayed switches of one delay are the quantum ticks
 * that fell inside it: ceil(delay / Q).  Compensation (Fig. 4): the gang leaves the run
 * queue and re-enters it at the tail once `delay` cycles have elapsed after its slice ended;
 * meanwhile the others run round robin with the default quantum.  If no other gang is
 * runnable the remaining compensation is waived (an idle machine would help nobody; counted
 * in comp_waived).
 * With comp = SHORTEN instead, the gang stays in the queue and carries a debt of `delay`
 * cycles: its next slice has quantum Q - debt, and a debt of Q or more skips its turn (the
 * debt shrinks by Q), unless no other gang is runnable (then the debt is waived).
 * With comp = SKIP (ito's runtime), the debt only ever skips whole turns (a remainder below Q
 * is carried and never shortens a turn), and a gang alone with a debt of Q or more is not
 * waived: the machine idles until the next quantum end (busmp_idle_cycles).
 * tick_grid = 1: a turn ends at the next multiple of Q after the decision that started it
 * (one periodic timer: a turn that starts late, after a delayed switch, is short).
 * Run queue: round robin in order of arrival; at every slice end, gangs whose compensation
 * expired re-enter first (in order of expiry), then the gang that just ran goes to the tail.
 * A switch to a different gang costs switch_cost cycles; a gang that continues costs none. */
#include "busmp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { P_RUN = 0, P_BARRIER = 1, P_EXIT = 2 };
enum { Q_READY = 0, Q_EXCLUDED = 1, Q_DONE = 2 };

struct busmp_proc {
    uint64_t clock;
    const uint64_t *ev;
    uint32_t pos, n;
    void *src;
    int status, in_region, stopped;
};

typedef struct prog {
    busmp_pstats st;
    busmp_refill_fn refill;
    busmp_proc proc[BUSMP_MAXCPU];
    int live, at_barrier, qstate;
    uint64_t excl_until, debt;
} prog;

struct busmp {
    busmp_params p;
    busmp_mem *mem;
    prog *progs;
    int nprog, cap;
    busmp_slice *slices;
    int nslice, slcap;
    int pending, error;
    uint64_t idle;
};

busmp_params busmp_paper_params(void)
{
    return (busmp_params){
        .ncpu = 8,
        .policy = BUSMP_PREEMPT,
        .quantum = 2500000,
        .signal_cost = 2700,
        .switch_cost = 26425,
        .bound_quanta = 10,
        .comp = BUSMP_COMP_SITOUT,
        .pending = BUSMP_PEND_STOP,
        .tick_grid = 0,
        .ops_scale = 1,
        .window = 500,
        .cache_bytes = 128 * 1024,
        .line_bytes = 16,
        .pen_inval = 3,
        .pen_c2c = 7,
        .pen_mem = 22,
    };
}

busmp *busmp_new(const busmp_params *p)
{
    if (p->ncpu < 1 || p->ncpu > BUSMP_MAXCPU || !p->quantum || !p->window || p->bound_quanta < 1 ||
        p->ops_scale < 1 || p->comp < BUSMP_COMP_SITOUT || p->comp > BUSMP_COMP_SKIP ||
        p->pending < BUSMP_PEND_STOP || p->pending > BUSMP_PEND_GANG)
        return NULL;
    busmp *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->p = *p;
    m->mem = busmp_mem_new(p->ncpu, p->cache_bytes, p->line_bytes, p->pen_inval, p->pen_c2c, p->pen_mem);
    if (!m->mem) {
        free(m);
        return NULL;
    }
    return m;
}

void busmp_free(busmp *m)
{
    if (!m)
        return;
    busmp_mem_free(m->mem);
    free(m->progs);
    free(m->slices);
    free(m);
}

int busmp_add_program(busmp *m, const char *name, int blocked, busmp_refill_fn refill, void *const *src)
{
    if (m->nprog == m->cap) {
        int cap = m->cap ? 2 * m->cap : 8;
        prog *np = realloc(m->progs, (size_t)cap * sizeof *np);
        if (!np)
            return -1;
        m->progs = np;
        m->cap = cap;
    }
    prog *g = &m->progs[m->nprog];
    memset(g, 0, sizeof *g);
    g->st.name = name;
    g->st.blocked = blocked;
    g->refill = refill;
    g->live = m->p.ncpu;
    for (int i = 0; i < m->p.ncpu; i++)
        g->proc[i].src = src[i];
    return m->nprog++;
}

int busmp_nprogs(const busmp *m) { return m->nprog; }
const busmp_pstats *busmp_stats(const busmp *m, int i) { return &m->progs[i].st; }
const busmp_params *busmp_params_of(const busmp *m) { return &m->p; }
uint64_t busmp_idle_cycles(const busmp *m) { return m->idle; }
busmp_mem *busmp_memory(busmp *m) { return m->mem; }
const busmp_slice *busmp_slices(const busmp *m, int *n)
{
    *n = m->nslice;
    return m->slices;
}

static void release_barrier(prog *g, int ncpu)
{
    uint64_t rel = 0;
    for (int i = 0; i < ncpu; i++)
        if (g->proc[i].status == P_BARRIER && g->proc[i].clock > rel)
            rel = g->proc[i].clock;
    for (int i = 0; i < ncpu; i++)
        if (g->proc[i].status == P_BARRIER) {
            g->st.cyc_barrier += rel - g->proc[i].clock;
            g->proc[i].status = P_RUN;
            g->proc[i].clock = rel;
        }
    g->at_barrier = 0;
}

static int any_in_region(const prog *g, int ncpu)
{
    for (int i = 0; i < ncpu; i++)
        if (g->proc[i].status == P_RUN && g->proc[i].in_region)
            return 1;
    return 0;
}

/* Runs process i of g until its clock reaches limit or it blocks; returns events executed. */
static uint64_t run_proc(busmp *m, prog *g, int i, uint64_t limit)
{
    busmp_proc *p = &g->proc[i];
    const int psafe = m->p.policy == BUSMP_PSAFE;
    const uint64_t k = m->p.ops_scale;
    busmp_pstats *st = &g->st;
    uint64_t done = 0, clock = p->clock;
    while (clock < limit && p->status == P_RUN && !p->stopped) {
        if (p->pos == p->n) {
            p->n = g->refill(p->src, &p->ev);
            p->pos = 0;
            if (!p->n) {
                m->error = 1;
                break;
            }
        }
        const uint64_t e = p->ev[p->pos++];
        done++;
        const uint64_t before = k * WL_EV_OPS_BEFORE(e);
        clock += before;
        st->cyc_instr += before;
        switch (WL_EV_KIND(e)) {
        case WL_EV_READ:
        case WL_EV_WRITE: {
            uint32_t pen = busmp_mem_access(m->mem, i, WL_EV_PAYLOAD(e), WL_EV_KIND(e) == WL_EV_WRITE, &st->mem);
            clock += 1 + pen;
            st->cyc_instr += 1;
            st->cyc_penalty += pen;
            break;
        }
        case WL_EV_OPS:
            clock += k * WL_EV_PAYLOAD(e);
            st->cyc_instr += k * WL_EV_PAYLOAD(e);
            break;
        case WL_EV_BEGIN:
            p->in_region = 1;
            st->regions++;
            if (psafe) {
                clock += m->p.signal_cost;
                st->cyc_signal += m->p.signal_cost;
                st->signals++;
            }
            break;
        case WL_EV_END:
            p->in_region = 0;
            if (psafe) {
                clock += m->p.signal_cost;
                st->cyc_signal += m->p.signal_cost;
                st->signals++;
            }
            if (m->pending) {
                if (m->p.pending == BUSMP_PEND_STOP)
                    p->stopped = 1;
                else if (!any_in_region(g, m->p.ncpu))
                    for (int j = 0; j < m->p.ncpu; j++)
                        g->proc[j].stopped = 1;
            }
            break;
        case WL_EV_BARRIER:
            p->status = P_BARRIER;
            p->clock = clock;
            if (++g->at_barrier == g->live)
                release_barrier(g, m->p.ncpu);
            clock = p->clock;
            break;
        case WL_EV_EXIT:
            p->status = P_EXIT;
            g->live--;
            if (g->at_barrier && g->at_barrier == g->live)
                release_barrier(g, m->p.ncpu);
            break;
        default:
            m->error = 1;
            break;
        }
        if (m->error)
            break;
    }
    /* A process whose next event is its exit, with no work before it, has finished: take the
     * exit now rather than let a quantum end between its last instruction and its exit. */
    if (p->status == P_RUN && !p->stopped && !m->error) {
        if (p->pos == p->n) {
            p->n = g->refill(p->src, &p->ev);
            p->pos = 0;
            if (!p->n)
                m->error = 1;
        }
        if (p->pos < p->n && p->ev[p->pos] == WL_EV_EXIT) {
            p->pos++;
            p->status = P_EXIT;
            g->live--;
            if (g->at_barrier && g->at_barrier == g->live)
                release_barrier(g, m->p.ncpu);
            done++;
        }
    }
    p->clock = clock;
    return done;
}

static int all_stopped(const prog *g, int ncpu)
{
    for (int i = 0; i < ncpu; i++)
        if (g->proc[i].status == P_RUN && !g->proc[i].stopped)
            return 0;
    return 1;
}

/* One time slice of gang gi from `now`; fills the slice record. */
static void run_slice(busmp *m, int gi, uint64_t now, uint64_t quantum, busmp_slice *s)
{
    prog *g = &m->progs[gi];
    const int n = m->p.ncpu;
    const uint64_t Q = m->p.quantum, W = m->p.window;
    for (int i = 0; i < n; i++) {
        g->proc[i].stopped = 0;
        if (g->proc[i].status != P_EXIT)
            g->proc[i].clock = now;
    }
    m->pending = 0;
    uint64_t t = now, tick = now + quantum, deadline = 0;
    const uint64_t accounted = g->st.cyc_instr + g->st.cyc_penalty + g->st.cyc_signal + g->st.cyc_barrier;
    *s = (busmp_slice){.prog = gi, .start = now};
    for (;;) {
        uint64_t wend = t + W;
        if (!m->pending && wend > tick)
            wend = tick;
        if (m->pending && wend > deadline)
            wend = deadline;
        uint64_t progress;
        do {
            progress = 0;
            for (int i = 0; i < n; i++)
                progress += run_proc(m, g, i, wend);
        } while (progress && !m->error);
        if (m->error)
            return;
        if (g->live == 0) {
            uint64_t end = 0;
            for (int i = 0; i < n; i++)
                if (g->proc[i].clock > end)
                    end = g->proc[i].clock;
            s->end = end;
            s->reason = BUSMP_END_FINISHED;
            break;
        }
        t = wend;
        if (!m->pending) {
            if (t < tick)
                continue;
            if (m->p.policy == BUSMP_PREEMPT || !any_in_region(g, n)) {
                s->end = t;
                s->reason = BUSMP_END_QUANTUM;
                break;
            }
            m->pending = 1;
            deadline = t + (uint64_t)m->p.bound_quanta * Q;
            if (m->p.pending == BUSMP_PEND_STOP)
                for (int i = 0; i < n; i++)
                    if (!g->proc[i].in_region)
                        g->proc[i].stopped = 1;
        }
        if (all_stopped(g, n)) {
            /* the switch happens when the last process stopped: at the tick for those that
             * were outside a region, right after its withdraw for the others */
            uint64_t end = tick;
            for (int i = 0; i < n; i++)
                if (g->proc[i].status == P_RUN && g->proc[i].clock > end)
                    end = g->proc[i].clock;
            s->end = end;
            s->reason = BUSMP_END_DELAYED;
            break;
        }
        if (t >= deadline) {
            s->end = t;
            s->reason = BUSMP_END_FORCED;
            break;
        }
    }
    if (m->error)
        return;
    /* idle = the rest of ncpu * slice length (processes may pass the slice end by their last
     * event, within a window: then this residual is a little smaller, possibly negative) */
    g->st.cyc_idle += (int64_t)((uint64_t)n * (s->end - s->start)) -
                      (int64_t)(g->st.cyc_instr + g->st.cyc_penalty + g->st.cyc_signal + g->st.cyc_barrier - accounted);
    if (m->pending) {
        s->delay = s->end > tick ? s->end - tick : 0;
        g->st.delays++;
        g->st.delay_cycles += s->delay;
        uint64_t ticks = s->delay ? (s->delay + Q - 1) / Q : 1;
        if (ticks > (uint64_t)m->p.bound_quanta)
            ticks = (uint64_t)m->p.bound_quanta;
        g->st.delayed_ticks += ticks;
        if (s->reason == BUSMP_END_FORCED)
            g->st.forced++;
    }
    m->pending = 0;
}

static int push_slice(busmp *m, const busmp_slice *s)
{
    if (m->nslice == m->slcap) {
        int cap = m->slcap ? 2 * m->slcap : 256;
        busmp_slice *ns = realloc(m->slices, (size_t)cap * sizeof *ns);
        if (!ns)
            return -1;
        m->slices = ns;
        m->slcap = cap;
    }
    m->slices[m->nslice++] = *s;
    return 0;
}

/* The end of a turn that is decided at `now` and starts at `start` (after the switch). */
static uint64_t turn_quantum(const busmp *m, uint64_t now, uint64_t start)
{
    const uint64_t Q = m->p.quantum;
    if (!m->p.tick_grid)
        return Q;
    uint64_t tick = (now / Q + 1) * Q;
    while (tick <= start)
        tick += Q;
    return tick - start;
}

/* Each program's fair share of the machine (busmp_pstats.fair_cycles), from the slices. */
static void fair_shares(busmp *m)
{
    for (int i = 0; i < m->nslice; i++) {
        const busmp_slice *s = &m->slices[i];
        int live = 0;
        for (int j = 0; j < m->nprog; j++)
            live += m->progs[j].st.finish > s->start;
        for (int j = 0; j < m->nprog; j++)
            if (m->progs[j].st.finish > s->start)
                m->progs[j].st.fair_cycles += (double)(s->end - s->start) / live;
    }
}

int busmp_run(busmp *m)
{
    int *queue = malloc((size_t)(m->nprog + 1) * sizeof(int)), qn = 0, remaining = m->nprog, last = -1;
    if (!queue)
        return -1;
    for (int i = 0; i < m->nprog; i++) {
        queue[qn++] = i;
        m->progs[i].qstate = Q_READY;
    }
    const uint64_t Q = m->p.quantum;
    uint64_t now = 0;
    while (remaining > 0) {
        if (qn == 0) { /* only compensating gangs left: waive the earliest one's remainder */
            int best = -1;
            for (int i = 0; i < m->nprog; i++)
                if (m->progs[i].qstate == Q_EXCLUDED &&
                    (best < 0 || m->progs[i].excl_until < m->progs[best].excl_until))
                    best = i;
            if (m->progs[best].excl_until > now)
                m->progs[best].st.comp_waived += m->progs[best].excl_until - now;
            m->progs[best].qstate = Q_READY;
            queue[qn++] = best;
        }
        const int gi = queue[0];
        memmove(queue, queue + 1, (size_t)(--qn) * sizeof(int));
        prog *g = &m->progs[gi];
        if (g->debt >= Q) {
            if (qn > 0 || m->p.comp == BUSMP_COMP_SKIP) { /* a whole quantum of debt costs this turn */
                g->debt -= Q;
                g->st.turns_skipped++;
                if (qn == 0) { /* SKIP, alone: nobody runs until the next quantum end */
                    uint64_t next = m->p.tick_grid ? (now / Q + 1) * Q : now + Q;
                    m->idle += next - now;
                    now = next;
                }
                queue[qn++] = gi;
                continue;
            }
            g->st.comp_waived += g->debt;
            g->debt = 0;
        }
        uint64_t start = now;
        if (last >= 0 && last != gi)
            start += m->p.switch_cost;
        uint64_t quantum = turn_quantum(m, now, start);
        if (m->p.comp == BUSMP_COMP_SHORTEN) {
            quantum = g->debt < quantum ? quantum - g->debt : 1;
            g->debt = 0;
        }
        now = start;
        busmp_slice s;
        run_slice(m, gi, now, quantum, &s);
        if (m->error || push_slice(m, &s)) {
            free(queue);
            return -1;
        }
        g->st.slices++;
        g->st.run_cycles += s.end - s.start;
        now = s.end;
        last = gi;
        /* gangs whose compensation expired re-enter first, in order of expiry */
        for (;;) {
            int best = -1;
            for (int i = 0; i < m->nprog; i++)
                if (m->progs[i].qstate == Q_EXCLUDED && m->progs[i].excl_until <= now &&
                    (best < 0 || m->progs[i].excl_until < m->progs[best].excl_until))
                    best = i;
            if (best < 0)
                break;
            m->progs[best].qstate = Q_READY;
            queue[qn++] = best;
        }
        if (s.reason == BUSMP_END_FINISHED) {
            g->qstate = Q_DONE;
            g->st.finish = s.end;
            remaining--;
        } else if (s.delay > 0 && m->p.comp == BUSMP_COMP_SITOUT) {
            g->qstate = Q_EXCLUDED;
            g->excl_until = s.end + s.delay;
        } else {
            g->debt += s.delay;
            queue[qn++] = gi;
        }
    }
    free(queue);
    fair_shares(m);
    return 0;
}
