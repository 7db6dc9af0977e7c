# palais-sim: every target creates the virtual environment when it is missing.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: demo test lint bench ladder reports golden playthroughs clean

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

STUDIES := runs/studies/standard
PRIVILEGES := reinforce_plus2,move_plus2,diagonal_move,mint_plus2,king_plus1,madame_plus1,cards_plus3,servants_plus1,servants_plus3

reports: $(STAMP)  ## the standard set's balance studies into reports/standard/ (hours on 2 cores; reruns reuse arms)
	$(BIN)/palais study seats --out $(STUDIES)/seats --groups 300 --gold-factorial
	$(BIN)/palais study layouts --out $(STUDIES)/layouts
	$(BIN)/palais study nobles --out $(STUDIES)/nobles --strategy greedy --strategy seals --groups 60
	$(BIN)/palais study nobles --out $(STUDIES)/privileges --nobles $(PRIVILEGES) --groups 100
	$(BIN)/python -m palais_sim.study.publish $(STUDIES) reports/standard

golden: $(STAMP)  ## regenerate the golden replays after a reviewed rule change
	$(BIN)/python -m tests.golden.make_golden

playthroughs: $(STAMP)  ## regenerate the random playthroughs and legal-choice counts after a reviewed rule change
	$(BIN)/python -m tests.playthroughs.make_playthroughs

clean:
	rm -rf $(VENV) runs .pytest_cache .ruff_cache
