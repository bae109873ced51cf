"""itocc: the ito-cc compiler driver (clang-19 with the ito yield plugin).

    driver.py     the command line: ito options, compile and link steps, the stub pipeline
    sites.py      the registers live at each yield site, from the final machine code
    stubs.py      per-live-set yield stubs, and the bindings of the sites to them
    intervals.py  the achieved intervals between checks, from a probe run's histogram
"""
