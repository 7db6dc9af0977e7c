# palais-sim: every target creates the virtual environment when it is missing.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# One install recipe, one stamp per set of extras: `make demo` and the other targets install the dev extra only;
# `make test` adds the ray extra (the Ray backend's tests need it; the demo does not, and Ray is ~240 MB).
STAMP := $(VENV)/.installed-dev
TEST_STAMP := $(VENV)/.installed-dev,ray

.PHONY: demo test lint bench ladder golden playthroughs clean

$(VENV)/.installed-%: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e ".[$*]"
	touch $@

demo: $(STAMP)  ## run the main job on its defaults and say where the results are
	@if [ -f runs/demo/manifest.json ]; then $(BIN)/palais simulate --out runs/demo --resume; \
	else $(BIN)/palais simulate --out runs/demo; fi
	$(BIN)/palais report all runs/demo --format html

test: $(TEST_STAMP)  ## the whole test suite
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

clean:
	rm -rf $(VENV) runs .pytest_cache .ruff_cache
