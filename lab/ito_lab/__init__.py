"""ito-lab: the experiments of the five papers and the side-by-side benchmarks."""
