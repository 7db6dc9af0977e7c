# palais-sim: every target creates the virtual environment when it is missing.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
BUILT := $(VENV)/.built
# The sources of the compiled engine (a superset of palais_sim/_build.py COMPILED_SOURCES): an edit recompiles.
ENGINE_SOURCES := $(wildcard palais_sim/*.py palais_sim/engine/*.py strategies/*.py) setup.py

.PHONY: demo test lint bench ladder golden playthroughs generate build clean

# The install compiles the engine with mypyc (setup.py; about 30 s); without a C compiler it installs the pure
# Python engine and says so.
$(STAMP): pyproject.toml setup.py
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[dev,ray]"
	touch $(STAMP) $(BUILT)

$(BUILT): $(STAMP) $(ENGINE_SOURCES)  ## recompile after an edit of the engine or the built-in strategies
	$(BIN)/python -m pip install --quiet --no-deps --no-build-isolation -e .
	touch $(BUILT)

build: $(BUILT)  ## compile the engine (again, if its sources changed)
	@$(BIN)/palais version

demo: $(BUILT)  ## run the main job on its defaults and say where the results are
	@if [ -f runs/demo/manifest.json ]; then $(BIN)/palais simulate --out runs/demo --resume; \
	else $(BIN)/palais simulate --out runs/demo; fi
	$(BIN)/palais report all runs/demo --format html

test: $(BUILT)  ## the whole test suite, on the compiled engine and again on its Python source
	@$(BIN)/palais version
	PALAIS_REQUIRE_COMPILED=$${PALAIS_REQUIRE_COMPILED-1} $(BIN)/python -m pytest
	PALAIS_PURE=1 $(BIN)/python -m pytest

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check palais_sim strategies tests

bench: $(BUILT)  ## engine speed: games/s per core, 1 worker and all workers
	$(BIN)/palais bench --players 4 --strategies greedy --compare-pure

ladder: $(BUILT)  ## the strategy ladder (a benchmark, minutes)
	$(BIN)/palais ladder

golden: $(STAMP)  ## regenerate the golden replays after a reviewed rule change
	$(BIN)/python -m tests.golden.make_golden

playthroughs: $(STAMP)  ## regenerate the random playthroughs and legal-choice counts after a reviewed rule change
	$(BIN)/python -m tests.playthroughs.make_playthroughs

generate: $(STAMP)  ## rewrite the code that follows from the state's field list (engine/state.py FIELDS)
	$(BIN)/python -m palais_sim.engine.codegen

clean:
	rm -rf $(VENV) runs .pytest_cache .ruff_cache build palais_sim/_build.json
	find palais_sim strategies -name '*.so' -delete
