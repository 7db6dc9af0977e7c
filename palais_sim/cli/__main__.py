"""`python -m palais_sim.cli ...` runs the `palais` command."""

from palais_sim.cli import app

app(prog_name="palais")
