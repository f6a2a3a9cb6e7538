# bidlab — on a fresh machine with Python 3.11+ and make, `make report` and `make test` do
# everything: both create the virtualenv (.venv) on first use.
#
#   make setup      create .venv and install bidlab with its dev tools (fast when up to date)
#   make test       run the whole test suite (before a commit that touches the kernel,
#                   the runner or the statistics)
#   make test-fast  the quick lane for daily work: everything but the `slow` and `dist` tests
#   make browser    headless Chromium and poppler for the printed-page tests (apt, as root)
#   make report     simulate every game and write the HTML report (out/report/site)
#   make bench      run the benchmarks (benchmarks/bench.py)
#   make ab AB_BASE=<tree>  the benchmark for <tree> and this tree, interleaved in one run:
#                   every figure's medians and their ratio (AB_ARGS="--quick --repeats 1")
#   make lint       ruff, mypy, the import-layer contract and the structure checks
#   make clean      remove build artefacts and output folders (keeps .venv)
#   make distclean  clean, and remove .venv too

SHELL := /bin/bash
.DEFAULT_GOAL := help

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.setup-stamp
# Extra pytest arguments, e.g. `make test PYTEST_ARGS=` to run in one process.
PYTEST_ARGS ?= -n 2
REPORT_OUT ?= out/report
MIN_PYTHON := 3.11

.PHONY: help setup test test-fast browser report bench ab lint clean distclean

help:
	@sed -n '1,/^$$/p' $(firstword $(MAKEFILE_LIST)) | sed 's/^# \{0,1\}//'

setup: $(STAMP)

# The stamp is newer than pyproject.toml and this Makefile once the install has succeeded
# for them (a changed install rule, such as a new extra, reinstalls).
$(STAMP): pyproject.toml Makefile
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' 2>/dev/null || { \
	  echo "make setup: bidlab needs Python $(MIN_PYTHON) or newer, but '$(PYTHON)' is" \
	       "$$($(PYTHON) --version 2>/dev/null || echo 'not found')." >&2; \
	  echo "Install Python $(MIN_PYTHON)+ or point make at it: make PYTHON=python3.12 setup" >&2; \
	  exit 1; }
	@if [ -x $(BIN)/python ] && ! $(BIN)/python -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then \
	  echo "make setup: $(VENV) was made with an older Python; run 'make distclean' first" >&2; \
	  exit 1; fi
	@[ -x $(BIN)/python ] || { echo "creating $(VENV) with $$($(PYTHON) --version)"; \
	  $(PYTHON) -m venv $(VENV); }
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev,dist]'
	@touch $(STAMP)
	@echo "$(VENV) is ready: $(BIN)/bidlab --help"

test: setup browser
	$(BIN)/python -m pytest $(PYTEST_ARGS)

test-fast: setup
	$(BIN)/python -m pytest $(PYTEST_ARGS) -m "not slow and not dist"

# The printed cheat sheet is checked in headless Chromium (one page per game, pdfinfo and
# pdftotext from poppler). Where make runs as root with apt-get (CI), install them when
# missing; elsewhere, or if the install fails, those tests skip and say what they need.
browser:
	@if command -v chromium >/dev/null && command -v pdfinfo >/dev/null; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
	  echo "installing chromium and poppler-utils for the printed-page tests"; \
	  { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
	      chromium poppler-utils >/dev/null; } || \
	  echo "make browser: could not install chromium/poppler-utils; the printed-page tests will skip" >&2; \
	else echo "make browser: no chromium/pdfinfo (install chromium and poppler-utils); the printed-page tests will skip" >&2; fi

# The main job: the rules text of every shipped game (rules-<game>.txt), then the report:
# every game at its usual player count, every hand size of its schedule, 1,000,000 hands
# each (REPORT_HANDS), into $(REPORT_OUT)/site/index.html; the tables and a manifest go
# to $(REPORT_OUT)/data (re-render with `bidlab report --render-only`).
REPORT_HANDS ?= 1000000
report: setup
	@mkdir -p $(REPORT_OUT)
	@set -e; \
	for game in $$($(BIN)/python -c 'import simulate; print(*simulate.shipped_variants())'); do \
	  $(BIN)/bidlab rules $$game > $(REPORT_OUT)/rules-$$game.txt; \
	done
	$(BIN)/bidlab report --hands $(REPORT_HANDS) --out $(REPORT_OUT)

# The peer (OpenSpiel) is installed only for the benchmark: the `bench` extra.
BENCH_STAMP := $(VENV)/.bench-stamp
$(BENCH_STAMP): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[bench]'
	@touch $(BENCH_STAMP)

bench: setup $(BENCH_STAMP)
	$(BIN)/python benchmarks/bench.py $(BENCH_ARGS)

# A/B against another source tree (e.g. a checkout of the last release): both trees run in
# this virtualenv, each importing its own simulate (benchmarks/ab.py).
AB_ARGS ?= --repeats 3
ab: setup $(BENCH_STAMP)
	@[ -n "$(AB_BASE)" ] || { echo "make ab: name the baseline tree, e.g. make ab AB_BASE=../bidlab-old" >&2; exit 2; }
	$(BIN)/python benchmarks/ab.py --a $(AB_BASE) --b . $(AB_ARGS)

lint: setup
	$(BIN)/ruff check simulate reports tests benchmarks scripts
	$(BIN)/mypy
	$(BIN)/lint-imports
	$(BIN)/python scripts/check_structure.py

clean:
	rm -rf build dist *.egg-info out runs benchmarks/results .pytest_cache .ruff_cache .hypothesis
	find . -path ./$(VENV) -prune -o -name __pycache__ -type d -prune -exec rm -rf {} +

distclean: clean
	rm -rf $(VENV)
