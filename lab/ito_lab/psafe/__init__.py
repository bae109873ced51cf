"""The psafe experiment (seed 003): sim.py (the simulated bus machine), real.py (the real run on
ito), common.py (mixes, the paper's numbers, helpers). experiments/psafe.py is the entry point."""
