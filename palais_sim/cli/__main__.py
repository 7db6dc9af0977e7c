"""`python -m palais_sim.cli ...` runs the `palais` command (the entry point: palais_launch.py, which the console
script imports first so that Ctrl-C is handled from the first import on; here, from after the package's)."""

from palais_launch import main

main()
