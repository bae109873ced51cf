"""The paper's worked examples (Figs. 3, 6, 8, 9): N = 3 processors, th = 7 threads, unit stage
times (T_B = 2 in Figs. 3, 6, 9), D = 8 bytes (D_C = D_P = 4).

Our copy of the paper has the captions but not the drawings, so the expected timelines below
were derived by hand, clock by clock, from the rules the paper states (the issuer runs M and
the template; idle processors start after M; A, B and C are each served one at a time, FIFO,
simultaneous requests by lower processor id) -- not by running the simulator.  P0 is the
issuer, P1..P3 the idle processors.  `[a,b)` is a stage occupying clocks a..b-1.
"""
from krpp import simulate, unit_model


def created_times(r):
    return [r.created[t][0] for t in range(r.threads)]


def timeline(r, pid):
    return [(e.stage, e.start, e.end) for e in r.trace if e.pid == pid]


def test_fig3_simple_parallel():
    # P0 M[0,1).  A: P1[1,2) P2[2,3) P3[3,4).  B (2 clocks): P1[2,4) P2[4,6) P3[6,8) P1[9,11)
    # P2[12,14) P3[14,16) P1[16,18).  C: P1[4,5) P1[6,7) P2[7,8) P3[8,9) P2[9,10) P3[10,11)
    # P1[11,12) P1[13,14) P2[14,15) P2[16,17) P3[17,18) P1[18,19) P3[19,20) P1[20,21).
    # Threads (in claim order) complete at 8, 11, 12, 15, 18, 21, 22.
    r = simulate("simple", 3, 7, unit_model(B=2), trace=True)
    assert created_times(r) == [8, 11, 12, 15, 18, 21, 22]
    assert [r.created[t][1] for t in range(7)] == [1, 2, 3, 1, 2, 3, 1]
    assert r.time == 22
    assert timeline(r, 0) == [("M", 0, 1)]
    assert [(s, a, b) for s, a, b in timeline(r, 1) if s == "C"] == [
        ("C", 4, 5), ("C", 6, 7), ("C", 11, 12), ("C", 13, 14), ("C", 18, 19), ("C", 20, 21)]


def test_fig6_parallel_template():
    # P0 M[0,1) then the template pair C[1,2) S[2,3).  B is busy without a gap from 2 to 16
    # (7 threads x 2 clocks): P1[2,4) P2[4,6) P3[6,8) P1[8,10) P2[10,12) P3[12,14) P1[14,16);
    # every thread then needs C and S (1 + 1), so the last completes at 18.
    r = simulate("template", 3, 7, unit_model(B=2), trace=True)
    assert r.template_done == 3
    assert timeline(r, 0) == [("M", 0, 1), ("C", 1, 2), ("S", 2, 3)]
    assert created_times(r) == [6, 8, 10, 12, 14, 16, 18]
    assert [(a, b) for s, a, b in sorted((e.stage, e.start, e.end) for e in r.trace)
            if s == "B"] == [(2, 4), (4, 6), (6, 8), (8, 10), (10, 12), (12, 14), (14, 16)]
    assert r.time == 18


def test_fig8_chunk():
    # Chunks 3, 2, 2 (ceil(7/3) for the first accessor, then ceil(4/2), ceil(2/1)).
    r = simulate("chunk", 3, 7, unit_model(B=1), trace=True)
    assert timeline(r, 0) == [("M", 0, 1)]
    # the two L stages of a non-first thread run back to back; shown as one 2-clock stage
    assert timeline(r, 1) == [("A", 1, 2), ("B", 2, 3), ("C", 3, 4), ("S", 4, 5), ("C", 5, 6),
                              ("S", 6, 7), ("B", 7, 8), ("L", 8, 10), ("B", 10, 11),
                              ("L", 11, 13)]
    assert timeline(r, 2) == [("A", 2, 3), ("B", 3, 4), ("C", 4, 5), ("S", 5, 6), ("C", 7, 8),
                              ("S", 8, 9), ("B", 9, 10), ("L", 10, 12)]
    assert timeline(r, 3) == [("A", 3, 4), ("B", 4, 5), ("C", 6, 7), ("S", 7, 8), ("C", 8, 9),
                              ("S", 9, 10), ("B", 11, 12), ("L", 12, 14)]
    assert created_times(r) == [7, 10, 13, 9, 12, 10, 14]
    assert r.time == 14


def test_fig9_combination():
    # P0 M[0,1) C[1,2) S[2,3) (template).  Chunks 3, 2, 2.  B is busy without a gap from 2
    # to 16: P1[2,4) P2[4,6) P3[6,8) P1[8,10) P2[10,12) P3[12,14) P1[14,16); first threads
    # of a chunk run C,S, the others one L; P1's last thread ends at 17.
    r = simulate("combination", 3, 7, unit_model(B=2), trace=True)
    assert r.template_done == 3
    assert created_times(r) == [6, 11, 17, 8, 13, 10, 15]
    assert timeline(r, 1) == [("A", 1, 2), ("B", 2, 4), ("C", 4, 5), ("S", 5, 6), ("B", 8, 10),
                              ("L", 10, 11), ("B", 14, 16), ("L", 16, 17)]
    assert r.time == 17


def test_paper_formula_for_contended_pairs():
    """Section 3.4.3: with only m C/S pairs of equal length tau per thread and n threads
    created by n processors, one thread takes T = (m-1) n tau + 2 tau (n >= 2)."""
    from krpp import Layout, Model, StageTimes
    for tau in (1, 3):
        for m in (1, 2, 5):
            for n in (2, 3, 6):
                model = Model(times=StageTimes(M=0, A=0, B=0, C=tau, S=tau, L=tau),
                              layout=Layout(common_bytes=0, private_bytes=4 * m))
                r = simulate("simple", n, n, model, trace=True)
                for tid in range(n):
                    first_c = min(e.start for e in r.trace if e.thread == tid and e.stage == "C")
                    assert r.created[tid][0] - first_c == (m - 1) * n * tau + 2 * tau
