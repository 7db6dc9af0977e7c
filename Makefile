# palais-sim: every target creates the virtual environment when it is missing.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
# One install and one stamp, whichever target comes first: the dev extra. `make test` adds the ray extra on top (the Ray
# backend's tests need it; the demo does not, and Ray is ~240 MB): Ray's packages only, with its own stamp, so the
# package is not reinstalled and the engine not compiled again after `make demo`.
STAMP := $(VENV)/.installed-dev
TEST_STAMP := $(VENV)/.installed-ray
# `make` compiles the engine with mypyc (setup.py, about a minute; without a C compiler it installs the pure Python
# engine and says so). BUILT is younger than the engine's sources while the compiled modules are current.
BUILT := $(VENV)/.built
# The compiled list is each game package's own (palais_sim/_build.py reads it): any source of a game or the core.
ENGINE_SOURCES := $(wildcard palais_sim/core/*.py palais_sim/games/*/*.py strategies/*/*.py) setup.py palais_sim/_build.py
REBUILD := @$(MAKE) --no-print-directory $(BUILT)

.PHONY: demo test verdicts lint bench ladder reports reports-render golden playthroughs generate build clean

# uv resolves and downloads the dependencies in parallel (about 15 s for the dev and ray extras against 2 minutes
# with pip); where uv cannot be installed or fails, pip does the same install. The install leaves the engine
# uncompiled (PALAIS_PURE_BUILD): $(BUILT) compiles it next, so that `make test` can run the Python source's tests
# meanwhile.
$(STAMP): pyproject.toml setup.py
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	($(BIN)/python -m pip install --quiet uv && PALAIS_PURE_BUILD=1 $(BIN)/python -m uv pip install --quiet --python $(BIN)/python -e ".[dev]") \
		|| PALAIS_PURE_BUILD=1 $(BIN)/python -m pip install --quiet -e ".[dev]"
	rm -f $(BUILT)
	touch $@

# The ray extra's requirements as pyproject.toml lists them, installed beside the package (no reinstall, no compile).
RAY_REQUIREMENTS = $$($(BIN)/python -c "import tomllib; print(*tomllib.load(open('pyproject.toml', 'rb'))['project']['optional-dependencies']['ray'])")
$(TEST_STAMP): $(STAMP)
	$(BIN)/python -m uv pip install --quiet --python $(BIN)/python $(RAY_REQUIREMENTS) \
		|| $(BIN)/python -m pip install --quiet $(RAY_REQUIREMENTS)
	touch $@

# mypyc compiles the listed modules in place (about a minute of one idle core, one C file per module; without a C
# compiler the pure Python engine stays, and `palais version` says so): first mypy's type check and the C code, then
# gcc on each module's extension. Every 15 s it says which step it is in, the extensions built so far of all of
# them, and the time taken; the log is printed when the build fails.
EXTENSIONS = $$($(BIN)/python -c "import runpy; print(len(runpy.run_path('palais_sim/_build.py')['COMPILED_SOURCES']) + 1)")
COMPILE := echo "compiling the engine with mypyc: a type check, then C code compiled by gcc; about a minute of one idle \
core, several on a busy one (log: $(VENV)/build.log)"; \
	total=$(EXTENSIONS); start=$$(date +%s); \
	$(BIN)/python setup.py build_ext --inplace > $(VENV)/build.log 2>&1 & build=$$!; \
	while kill -0 $$build 2>/dev/null; do \
		for tick in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15; do kill -0 $$build 2>/dev/null && sleep 1; done; \
		kill -0 $$build 2>/dev/null || break; \
		done_=$$(grep -c "^building '" $(VENV)/build.log); \
		if [ "$$done_" -eq 0 ]; then step="type check and C code generation"; \
		else step="gcc: extension $$done_ of $$total"; fi; \
		echo "  $$(( $$(date +%s) - start )) s: $$step"; \
	done; \
	wait $$build || { cat $(VENV)/build.log; exit 1; }; \
	grep "^palais-sim:" $(VENV)/build.log; echo "  the build took $$(( $$(date +%s) - start )) s"; touch $(BUILT)
STALE := [ ! -f $(BUILT) ] || [ -n "$$(find $(ENGINE_SOURCES) -newer $(BUILT))" ]

$(BUILT): $(ENGINE_SOURCES)
	@$(COMPILE)

build: $(STAMP)  ## compile the engine again after an edit of its sources (the install compiles it)
	$(REBUILD)
	@$(BIN)/palais version

demo: $(STAMP)  ## run the main job on its defaults and say where the results are
	$(REBUILD)
	@if [ -f runs/demo/manifest.json ]; then $(BIN)/palais simulate --out runs/demo --resume; \
	else $(BIN)/palais simulate --out runs/demo; fi
	$(BIN)/palais report all runs/demo --format html

# The tests in parallel over the cores (pytest-xdist; worksteal balances the slow end-to-end tests), every test on the
# compiled build, and the tests of the compiled code (marked `engine` in tests/conftest.py) on its Python source too.
# The Python source's pass runs on one core while the other compiles the engine (the build is one compiler at a time).
PYTEST := $(BIN)/python -m pytest -n auto --dist worksteal

test: $(TEST_STAMP)  ## the whole test suite on the compiled engine, and the engine's tests on its Python source
	@echo "the engine's tests on its Python source, on one core while the other compiles the engine"
	@PALAIS_PURE=1 $(BIN)/python -m pytest -n 1 -m engine & pure=$$!; \
	if $(STALE); then ($(COMPILE)) || { kill $$pure; exit 1; }; fi; \
	wait $$pure
	@$(BIN)/palais version
	PALAIS_REQUIRE_COMPILED=$${PALAIS_REQUIRE_COMPILED-1} $(PYTEST)

verdicts: $(STAMP)  ## the verdict checks at the game's default levels, search level included (planted nobles, a price sweep; about 3 minutes on 2 cores)
	$(REBUILD)
	$(BIN)/python -m pytest -m slow

lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check palais_sim strategies tests

bench: $(STAMP)  ## engine speed: games/s per core, 1 worker and all workers, compiled against pure Python
	$(REBUILD)
	$(BIN)/palais bench --players 4 --strategies greedy --compare-pure

# Every built-in, the search players at small budgets (about 90 s on 2 cores); override: make ladder LADDER=greedy,seals
LADDER ?= random,greedy,economy,seals,park,cards,lookahead:budget=8,ismcts:budget=10

ladder: $(STAMP)  ## the strategy ladder: every built-in, ratings and decisions/s (a benchmark, minutes)
	$(REBUILD)
	$(BIN)/palais ladder --strategies $(LADDER) --games 60 --workers 2 --seed 1

STUDIES := runs/studies/standard
STUDY_WORKERS ?= 2
# Where the studies' arms play: this machine's worker processes, or a Ray cluster (installs the ray extra; every arm
# then uses the cluster's CPUs, and runs/ must be shared storage at the same path on every node):
#   make reports STUDY_RUN="--backend ray --address HOST:6379"
STUDY_RUN ?= --workers $(STUDY_WORKERS)
REPORTS_STAMP := $(if $(findstring ray,$(STUDY_RUN)),$(TEST_STAMP),$(STAMP))
# The standard set is sized to be played in one working session: at most 2 hours on the developers' machine (2
# cores), measured cost per level and study from the set of 2026-11-27 (CPU-seconds: greedy 2p about 630 games a
# CPU-second in a study, expert 2p about 17, expert 3-4p about 10, ismcts:budget=25,horizon=2 2p about 3.9; the expert
# of 2026-11-29 about 28 at 2p, 13 at 3p and 10 at 4p). Two skill levels: greedy (cheap, every subject) and expert
# (the strongest affordable: above ismcts:budget=30, 66 Elo below ismcts:budget=100 at 2p);
# lookahead:budget=8 is dropped (weaker than expert and as slow). Above them one rung, ismcts:budget=25,horizon=2, on
# the subjects it can decide at this size: whether a verdict survives a stronger player.
STUDY_LEVELS := --strategy greedy --strategy expert
# Seats, 2-4 players, start gold permuted (the factorial). expert: 2,400 setups a player count (1,440 CPU-s; 1 of 18
# rows undecided; the expert of 2026-11-29: 1,749 CPU-s, 3 of 18). greedy's seat effects lie near the margin (2
# players: -2.2 pp [-3.5, -0.8] at 2,400 setups, 7 of 18 rows undecided), and its games cost 1/100 of expert's: 12,000
# setups, in a study of its own.
SEAT_GROUPS := 2400
SEAT_GROUPS_GREEDY := 12000
# Layouts: random-layout games and first-game-layout setups. 12,000 of each left 4 of 13 rows undecided at expert
# (1,230 CPU-s: gate_to_madame -3.0 [-4.0, -2.0], the first-game layout +2.7 [+1.5, +3.9], two blocks' spreads) and
# 3 at greedy (16 CPU-s); 30,000 left 3 at expert on 2026-11-27. 20,000 (expert about 2,050 CPU-s).
LAYOUT_GAMES := 30000
FIRST_GAME_SETUPS := 30000
# The nobles study: every noble and privilege at greedy (6,000 groups in 10 looks; about 540 CPU-s). At expert every
# subject would cost about 9 CPU-hours (most rows need 3,000 to 6,000 groups to decide at +-2 pp), so expert studies
# the subjects chosen before these games were played: those decided at expert on 2026-11-27 at least 3.4 pp from zero
# (servants_plus3 +21.1, N28 +8.8, N27 +7.0, mint_plus2 -5.7, N24 +4.3, king_plus1 -4.3, N23 +4.0, N26 -3.5, N37 -3.4),
# up to 2,400 groups in 4 looks (about 2,200 CPU-s); the four largest again at ismcts:budget=25,horizon=2 (about
# 2,500 CPU-s). The repriced price lines (up to 15 CPU-hours) are not in the set: --reprice none.
NOBLES_STRONG := servants_plus3,N28,N27,mint_plus2,N24,king_plus1,N23,N26,N37
NOBLES_LADDER := servants_plus3,N28,N27,mint_plus2
STRENGTH_LADDER := ismcts:budget=25,horizon=2
# The balance search at greedy: prices screened at 300 groups, the proposal validated by a nobles study of it at the
# nobles study's own size (6,000 groups in 10 looks); about 700 CPU-s.
BALANCE_BUDGET ?= 3000000

# Palastgefluester's standard studies, beside Palais Royal's under the same index (their names say the game). One
# skill level, its heuristic: its other study level, random play, is dropped (the heuristic supersedes it: how a
# person or a seat fares among random players says nothing about play that tries to win); its expert joins when it
# plays at study speed. Sized on 2026-11-28 with the compiled engine (about 460 games a CPU-second in both studies)
# to leave at most 30% of rows undecided, about 7 CPU-minutes together. Persons, 4 players: 3,200 groups (179,200
# games, about 380 CPU-s; 1 of 7 rows undecided, where 2,400 groups left 5). Seats, 3-5 players: 8,000 setups a player
# count (24,000 games, about 53 CPU-s; 2 of 12 undecided, where 6,000 left 3, the goal with no slack).
PG_STUDY_LEVELS := --strategy heuristic
PG_PERSONS_GROUPS := 3200
PG_SEAT_GROUPS := 8000

# Every arm records the code that played it; after a change of the code a finished arm is replayed on its first and
# last groups and kept when the games are identical (verified), played again otherwise. Cheapest first, so that a
# make reports stopped part-way (every study resumes) has finished all it could.
reports: $(REPORTS_STAMP)  ## the standard set of both games (Palais Royal's seats, layouts, nobles and balance at greedy, expert and one stronger rung; Palastgefluester's persons and seats) into reports/standard/ (under 2 hours on 2 cores; reruns reuse arms)
	$(REBUILD)
	$(BIN)/python -m palais_sim.study.compact restore reports/standard $(STUDIES)
	$(BIN)/palais study nobles --out $(STUDIES)/nobles --strategy greedy --groups 6000 --looks 10 --reprice none $(STUDY_RUN)
	$(BIN)/palais balance nobles --out $(STUDIES)/balance --players 2 --strategy greedy --groups 300 --validation-groups 6000 --validation-looks 10 --budget $(BALANCE_BUDGET) $(STUDY_RUN)
	$(BIN)/palais study seats --game palastgefluester --out $(STUDIES)/pg-seats --groups $(PG_SEAT_GROUPS) $(PG_STUDY_LEVELS) $(STUDY_RUN)
	$(BIN)/palais study persons --game palastgefluester --out $(STUDIES)/pg-persons --groups $(PG_PERSONS_GROUPS) $(PG_STUDY_LEVELS) $(STUDY_RUN)
	$(BIN)/palais study seats --out $(STUDIES)/seats-greedy --groups $(SEAT_GROUPS_GREEDY) --gold-factorial --strategy greedy $(STUDY_RUN)
	$(BIN)/palais study seats --out $(STUDIES)/seats --groups $(SEAT_GROUPS) --gold-factorial --strategy expert $(STUDY_RUN)
	$(BIN)/palais study layouts --out $(STUDIES)/layouts --groups $(LAYOUT_GAMES) --first-game-setups $(FIRST_GAME_SETUPS) $(STUDY_LEVELS) $(STUDY_RUN)
	$(BIN)/palais study nobles --out $(STUDIES)/nobles-strong --nobles $(NOBLES_STRONG) --strategy expert --groups 2400 --looks 4 --reprice none $(STUDY_RUN)
	$(BIN)/palais study seats --out $(STUDIES)/seats-ladder --players 2 --strategy $(STRENGTH_LADDER) --groups 3000 $(STUDY_RUN)
	$(BIN)/palais study nobles --out $(STUDIES)/nobles-ladder --nobles $(NOBLES_LADDER) --strategy $(STRENGTH_LADDER) --groups 1800 --looks 3 --reprice none $(STUDY_RUN)
	$(BIN)/python -m palais_sim.study.publish $(STUDIES) reports/standard

# Every page, study.json and the index of reports/standard rendered again from the committed evidence alone (no
# runs/, nothing played): the published pages are this render, so it changes no byte.
reports-render: $(STAMP)  ## re-render reports/standard from its committed evidence (no runs/ needed; plays nothing)
	$(BIN)/python -m palais_sim.study.compact render reports/standard
	$(BIN)/python -m palais_sim.study.publish reports/standard reports/standard

golden: $(STAMP)  ## regenerate the golden replays after a reviewed rule change
	$(BIN)/python -m tests.palais_royal.golden.make_golden

playthroughs: $(STAMP)  ## regenerate the random playthroughs and legal-choice counts after a reviewed rule change
	$(BIN)/python -m tests.palais_royal.playthroughs.make_playthroughs
	$(BIN)/python -m palais_sim.games.palastgefluester.playthroughs

generate: $(STAMP)  ## rewrite the code that follows from the state's field list (engine/state.py FIELDS)
	$(BIN)/python -m palais_sim.games.palais_royal.codegen

clean:
	rm -rf $(VENV) runs .pytest_cache .ruff_cache build palais_sim/_build.json
	find palais_sim strategies -name '*.so' -delete
