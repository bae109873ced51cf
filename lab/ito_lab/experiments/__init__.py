"""One module per experiment.

Contract (every module here follows it; the CLI discovers them by name):

    NAME = "spawn"                 # the subcommand: ito-lab spawn
    HELP = "one line"
    def add_arguments(parser): ... # optional: argparse options of this experiment
    def run(args, ctx) -> int: ... # writes under ctx.results_dir / NAME; returns an exit code

`ctx` is an ito_lab.context.Context (results_dir, build_dir, run_program, progress).
"""
