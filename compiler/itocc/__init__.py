"""itocc: the ito-cc compiler driver (clang-19 with the ito yield plugin).

    driver.py     the ito options, the compile and link steps, the stub pipeline
    cmdline.py    the clang command line: response files, option values, inputs, modes
    sites.py      the registers live at each yield site, from the final machine code
    stubs.py      per-live-set yield stubs, and the bindings of the sites to them
    fallback.py   the runtime stand-in linked into executables that have no runtime
"""
