# palais-sim: every target creates the virtual environment when it is missing.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint bench ladder golden playthroughs generate clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev,ray]"
	touch $(STAMP)

demo: $(STAMP)  ## run the main job on its defaults and say where the results are
	@if [ -f runs/demo/manifest.json ]; then $(BIN)/palais simulate --out runs/demo --resume; \
	else $(BIN)/palais simulate --out runs/demo; fi
	$(BIN)/palais report all runs/demo --format html

test: $(STAMP)  ## the whole test suite
	$(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check palais_sim strategies tests

bench: $(STAMP)  ## engine speed: games/s per core, 1 worker and all workers
	$(BIN)/palais bench --players 4 --strategies greedy

ladder: $(STAMP)  ## the strategy ladder (a benchmark, minutes)
	$(BIN)/palais ladder

golden: $(STAMP)  ## regenerate the golden replays after a reviewed rule change
	$(BIN)/python -m tests.golden.make_golden

playthroughs: $(STAMP)  ## regenerate the random playthroughs and legal-choice counts after a reviewed rule change
	$(BIN)/python -m tests.playthroughs.make_playthroughs

generate: $(STAMP)  ## rewrite the code that follows from the state's field list (engine/state.py FIELDS)
	$(BIN)/python -m palais_sim.engine.codegen

clean:
	rm -rf $(VENV) runs .pytest_cache .ruff_cache
