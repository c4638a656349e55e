# Two commands: `make book` builds the book, `make test` runs every test (including a strict build).
# Everything else here is a step of those two.

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DELETE_ON_ERROR:
.SUFFIXES:

PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
VENV_STAMP := $(VENV)/.installed
# the machine's cores: GNU nproc obeys OMP_NUM_THREADS (exported as 1 below), so it is read without it
NPROC := $(shell env -u OMP_NUM_THREADS -u OMP_THREAD_LIMIT nproc 2>/dev/null || echo 2)
BUILD := _build
STAGE := $(BUILD)/book
export OMP_NUM_THREADS := 1
# the analysis package is imported from this checkout (never from an installed copy)
export PYTHONPATH := $(CURDIR)
export PYDEVD_DISABLE_FILE_VALIDATION := 1

PKG := $(shell find analysis -name "*.py" -not -path "*/__pycache__/*")
DATA := $(wildcard data/*)
NB_SRC := $(wildcard analysis/notebooks/*.md)
NB_OUT := $(patsubst analysis/notebooks/%.md,$(STAGE)/notebooks/%.ipynb,$(NB_SRC))
NB_DEPS := $(patsubst analysis/notebooks/%.md,$(BUILD)/deps/%.d,$(NB_SRC))
BOOK_SRC := _config.yml _toc.yml intro.md $(shell find chapters _static _templates -type f 2>/dev/null)
HTML_STAMP := $(BUILD)/html/.built
URL_STAMP := $(BUILD)/book-url
FIGURE_FILES_STAMP := $(BUILD)/figure-files

.PHONY: book book-locked test venv validate notebooks html figures figures-locked book-all book-all-locked run params \
	bench clean freeze lint \
	browser-deps corpus accept publish pdf cache-restored help release

# One build at a time per checkout: `make book` (and `make clean`) hold this lock (flock(1),
# util-linux); a second build waits for the first, saying so.
LOCK := .build.lock
define locked
	@flock -n $(LOCK) true 2>/dev/null || echo "make: another build of this checkout holds $(LOCK); waiting for it to finish" >&2
	@flock $(LOCK) $(1)
endef

## make book: set up, validate data/, execute notebooks (parallel, incremental), build the HTML
book:
	$(call locked,$(MAKE) --no-print-directory book-locked)

# The build's steps (the bibliography is made in the notebooks' pool, which it does not depend on; the pool
# runs beside a warm parent that forks the notebooks' kernels: analysis/book/zygote.py); $(1): the figure files made before the HTML (empty for make book; "all" for the
# complete book: every figure's PDF and talk version, made from the drawings the notebooks kept)
define build_steps
	@$(PY) -m analysis.book.zygote run -- $(MAKE) --no-print-directory -j$(NPROC) --output-sync=target notebooks references.bib
	@$(PY) -m analysis cache save
	$(if $(1),@$(PY) -m analysis figures --style $(1))
	@$(MAKE) --no-print-directory html
endef

book-locked: venv validate $(URL_STAMP)
	$(call build_steps,)

## make book-all: the complete book, as published: make book plus every figure's PDF and talk version
## (make figures STYLE=all), offered in the gallery
book-all: venv
	$(call locked,$(MAKE) --no-print-directory book-all-locked)
book-all-locked: venv validate $(URL_STAMP)
	$(call build_steps,all)

## make test: the same set-up and build, then lint and the whole test suite (which makes the figures'
## other files from a few kept drawings, and checks the talk version of every figure can be made)
# over every core (pytest-xdist); the tests of one xdist_group (a shared rebuild, the browser sweep,
# the payload build) stay on one worker. The inner loop is `pytest -m "not slow"` (docs/development.md, "Tests").
test: book lint browser-deps
	$(PY) -m pytest -q -n $(NPROC) --dist loadgroup

# Debian's chromium for the browser tests (never a downloaded browser build), and axe-core for the
# accessibility checks: the pinned npm release (npm checks its integrity), unpacked into tests/vendor/
# (gitignored); tests/test_browser.py loads that file into each page, so nothing is fetched during tests
AXE_VERSION := 4.14.1
AXE_JS := tests/vendor/axe-core-$(AXE_VERSION)/axe.min.js
browser-deps: $(AXE_JS)
	@command -v chromium >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }
$(AXE_JS):
	@rm -rf tests/vendor/axe-core-* && mkdir -p $(@D)
	cd $(@D) && npm pack --silent axe-core@$(AXE_VERSION) >/dev/null && \
		tar -xzf axe-core-$(AXE_VERSION).tgz --strip-components=1 package/axe.min.js package/LICENSE && \
		rm axe-core-$(AXE_VERSION).tgz

venv: $(VENV_STAMP)
$(VENV_STAMP): requirements.txt constraints.txt
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -r requirements.txt
	touch $@

validate: $(BUILD)/validated
# The seed folder is an input like data/: a seed file added, changed or removed (the folder's own time
# stamp) validates again, and validation stops the build, before any notebook, while a seed record has
# no row in data/papers.csv. $(value ...): the folder's name is data, never expanded (see SEEDS below).
SEEDS ?= ../shared/seeds
# The seed files reach make through a stamp of their listing (analysis/data/corpus.py, seeds_listing), never
# as make words: a file name with a space or a colon, or SEEDS switched to another folder, is handled there.
SEEDS_STAMP := $(BUILD)/seeds-listing
$(SEEDS_STAMP): export SEEDS_DIR = $(value SEEDS)
$(SEEDS_STAMP): FORCE | $(VENV_STAMP)
	@$(PY) -m analysis seeds --stamp $@
$(BUILD)/validated: export SEEDS_DIR = $(value SEEDS)
$(BUILD)/validated: $(VENV_STAMP) $(DATA) $(PKG) $(SEEDS_STAMP)
	@mkdir -p $(BUILD)
	$(PY) -m analysis validate
	@touch $@

## make corpus: the update to review in _build/corpus/: new seed records, exact and near duplicates,
## scaffold paper rows (suggested citekey and theme) and candidate claims, all unreviewed; never data/
# Values typed on the command line (SEEDS, NB, PARAMS, STYLE) reach Python as environment
# variables holding their raw text ($(value ...): make does not expand them, no shell sees them).
# make would export (and so expand) command-line variables into every recipe's environment:
# these four are not exported under their own names. (`unexport` defines a variable not yet defined,
# empty, so a default must come before it: STYLE ?= after it never applied.)
STYLE ?= talk
unexport SEEDS NB PARAMS STYLE

# The published URL, configured once: BOOK_URL=https://<owner>.github.io/<repo>/ on make's command line
# or in the environment (docs/publishing.md). It reaches Python as raw text in ANALYSIS_BOOK_URL,
# like the values above; Python checks it (https, no placeholder host such as example.org) and the
# staged book derives cite blocks, canonical links, Open Graph URLs and the sitemap from it. Without
# it a build is a local build. (A value from the environment is passed on unexpanded by make itself.)
ifeq ($(origin BOOK_URL),command line)
unexport BOOK_URL
endif
export ANALYSIS_BOOK_URL = $(value BOOK_URL)
# checked on every build; rewritten only when the URL changes, so the HTML is rebuilt exactly then
$(URL_STAMP): FORCE | $(VENV_STAMP)
	@$(PY) -m analysis url --stamp $@
FORCE:

## make publish BOOK_URL=https://…/: the book for publishing at that address (refused without one),
## with every figure's files (PDF, talk version, sharing card)
publish: venv
	$(PY) -m analysis url --require
	$(call locked,$(MAKE) --no-print-directory book-all-locked)

## make pdf: the whole book as one PDF, _build/pdf/book.pdf (Debian's chromium; not part of make book)
pdf: book browser-deps
	$(call locked,$(PY) -m analysis pdf)

# CI: after restoring _build from a cache (this commit's or an earlier one's), mark up to date each
# executed notebook whose own recorded inputs (its source, the modules and data files its .d lists,
# the runner, the pins, the seed files) equal this checkout's, with its outputs (a checkout re-stamps
# every file); make re-runs the others. It prints how many were restored and which will re-run.
cache-restored: venv
	$(PY) -m analysis cache restore
corpus: export SEEDS_DIR = $(value SEEDS)
corpus: venv
	$(PY) -m analysis update

## make accept: merge the reviewed rows (review=accept) of _build/corpus/ into data/, validated first
accept: export SEEDS_DIR = $(value SEEDS)
accept: venv
	$(PY) -m analysis accept

## make release VERSION=x.y.z: keep this build's numbers in data/releases/<version>/ (the What changed page
## compares the next builds with them), bump CITATION.cff, snapshot the bibliography's labels; then commit
unexport VERSION
release: export ANALYSIS_RELEASE_VERSION = $(value VERSION)
release: book
	$(PY) -m analysis release

# generated from the paper table once it has been validated (labels as published: data/releases/)
references.bib: data/papers.csv data/outside-corpus.csv $(wildcard data/releases/published-labels.csv data/releases/label-changes.csv) $(PKG) | $(BUILD)/validated
	$(PY) -m analysis bib
	@touch $@

notebooks: $(NB_OUT)

# A notebook is re-executed when its source, a module of the analysis package it imports, or a
# data file it read changes (the runner records both in _build/deps/<name>.d; a notebook without
# that record runs again). Validation runs first but its time stamp alone triggers nothing.
$(STAGE)/notebooks/%.ipynb: export SEEDS_DIR = $(value SEEDS)
$(STAGE)/notebooks/%.ipynb: analysis/notebooks/%.md analysis/book/runner.py $(BUILD)/deps/%.d | $(BUILD)/validated
	$(PY) -m analysis execute $< $@

# named explicitly (not intermediate): a missing record makes its notebook run again
$(NB_DEPS): ;
-include $(wildcard $(BUILD)/deps/*.d)

html: $(HTML_STAMP)
# (and after `make figures` made figure files: the gallery links them)
$(HTML_STAMP): $(NB_OUT) $(BOOK_SRC) references.bib $(PKG) CITATION.cff $(URL_STAMP) $(wildcard $(FIGURE_FILES_STAMP))
	$(PY) -m analysis html

# also the citation file (CFF 1.2.0 schema) and the CI workflow (actionlint)
lint: venv
	$(PY) -m ruff check analysis tests bench
	$(PY) -m mypy
	$(PY) -m analysis citation
	$(VENV)/bin/actionlint .github/workflows/book.yml

## make run NB=name PARAMS="a=1 b=2": re-run one analysis with your own parameters
# NB and PARAMS are data: Python reads them from the environment and checks every value
# against the notebook's declarations (analysis/book/parameters.py) before anything runs.
run: export ANALYSIS_RUN_NOTEBOOK = $(value NB)
run: export ANALYSIS_RUN_PARAMS = $(value PARAMS)
run: venv validate
	$(PY) -m analysis run --from-env

## make figures STYLE=talk|book|all: the figures' other files, made from the drawings the notebooks
## kept (no notebook runs again): talk versions for slides (16:9, large type, attribution footer) in
## _build/talk-figures; book: the PDFs; all: both. The next make book offers them in the gallery.
figures: export ANALYSIS_FIGURE_STYLE = $(value STYLE)
figures: venv validate
	$(call locked,$(MAKE) --no-print-directory figures-locked)
figures-locked: $(URL_STAMP)
	@$(PY) -m analysis figures --style-from-env --check
	@$(MAKE) --no-print-directory -j$(NPROC) --output-sync=target notebooks
	$(PY) -m analysis figures --style-from-env

## make params NB=name: list a notebook's parameters
params: export ANALYSIS_RUN_NOTEBOOK = $(value NB)
params: venv
	$(PY) -m analysis params --from-env

## make bench [ROWS=cold,noop,touch]: build timings, in a temporary copy of the checkout (bench/build.sh);
## the table also goes to _build/bench/build.txt. The build lock is held only while it copies.
# ROWS is data like NB and PARAMS: not exported under its own name (make would expand it), it reaches
# the script as raw text in BENCH_ROWS, which checks every row name against its list.
unexport ROWS
bench: export BENCH_ROWS = $(value ROWS)
bench: venv
	bash bench/build.sh

freeze: venv
	$(PY) -m pip freeze --exclude-editable | grep -v -E '^(pip|setuptools|wheel)==' > constraints.txt

clean:
	$(call locked,rm -rf $(BUILD))

## make help: this list of targets (the `##` lines of the Makefile)
help:
	@sed -n 's/^## //p' Makefile
