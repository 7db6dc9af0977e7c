"""`python -m palais_sim.cli ...` runs the `palais` command (the console script starts at palais_launch.py, which
handles Ctrl-C from the first import on; here, from after the package's)."""

from palais_sim.cli import main

main()
