"""ito_census: the live-register census of x86-64 machine code after register allocation.

The paper (Jääskeläinen et al., section 3.1, Fig. 1 and Table 1) counts the live
registers at every instruction of compiled programs and asks, per basic block, where the
fewest registers are live: at the beginning, only somewhere in the middle, or at the end.
This package does the same for clang 19 on x86-64:

    regs.py      the x86-64 register file: names -> (class, number, width)
    mir.py       a parser for the MIR that `clang -mllvm -stop-after=virtregrewriter` writes
    liveness.py  backward liveness of the 16 GPRs, the vector registers and EFLAGS, per point
    stats.py     per-block minima, the Fig. 1 histogram and the Table 1 rows
    compile.py   building MIR from C sources (stb from Debian's libstb-dev, ito's own sources)
    __main__.py  `python -m ito_census`: run it, print the table, write JSON
"""
