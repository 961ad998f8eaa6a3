# Two commands do everything on a fresh machine with Python 3.11 and make:
#   make book   render every page from the committed paper-profile results and build the HTML book
#               (make book PROFILE=quick recomputes the whole book at small size on a CPU, in minutes)
#   make test   run the test suite
# and one checks the paper book and its PDF as a reader meets them: make check (make book, then its tests with
#   ENTROPIC_PAPER_BOOK=1, which print the PDF with make pdf as printed; CI runs make book, then make test so);
# and one prints the book: make pdf (_build/pdf/entropic-bound.pdf, through Debian's chromium);
# and one writes the teaching chapter's lesson: make slides (build/lesson/: reveal.js slides, a one-page handout).
# The environment holds the package with its extras: [book] (papermill, Jupyter Book, Playwright),
# [cluster] (Dask) and [test]; cffconvert, which checks CITATION.cff, lives in .venv/cffconvert (its
# jsonschema pin conflicts with the book's).
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp
CFF := $(VENV)/cffconvert
CFF_STAMP := $(CFF)/.installed-stamp
PROFILE ?=
PROFILE_FLAG := $(if $(PROFILE),--profile $(PROFILE))
# $(call TICKING,what,command): run command and, while it runs, say "what: N s" every TICK seconds (pip --quiet and
# chromium print nothing for a minute or more); the exit status is the command's.
TICK ?= 10
COMMA := ,
TICKING = { ( $(2) ) & pid=$$!; s=0; while kill -0 $$pid 2>/dev/null; do sleep 1; s=$$((s + 1)); \
  if [ $$((s % $(TICK))) -eq 0 ] && kill -0 $$pid 2>/dev/null; then echo "  $(1): $$s s"; fi; done; wait $$pid; }

.PHONY: book section pdf slides test check lint bench clean corpora

# The install compiles the installed packages' bytecode afterwards, on every core (pip compiles file by file on one,
# which took as long as the install itself), their own test suites left out (a fifth of the files: pandas', SymPy's
# and NumPy's tests, which nothing here imports); as with pip, a file that does not compile on this Python (a
# module written for a newer one) is left as source.
$(STAMP): pyproject.toml requirements.lock
	@echo "Installing the project with the pins of requirements.lock into $(VENV)/ (once; a few minutes on a fresh machine)"
	@start=$$(date +%s); \
	  test -x $(PY) || $(PYTHON) -m venv $(VENV) && \
	  $(call TICKING,installing,$(PY) -m pip install --quiet --disable-pip-version-check --no-compile -c requirements.lock -e '.[book$(COMMA)cluster$(COMMA)test]') && \
	  $(call TICKING,compiling,$(PY) -m compileall -qq -j 0 -x '/tests?/' $$($(PY) -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])') || true) && \
	  echo "Installed in $$(( $$(date +%s) - start )) s"
	@touch $(STAMP)

$(CFF_STAMP): requirements-cffconvert.lock | $(STAMP)
	@echo "Installing cffconvert (which checks CITATION.cff) into $(CFF)/"
	@test -x $(CFF)/bin/python || $(PYTHON) -m venv $(CFF)
	@$(call TICKING,installing cffconvert,$(CFF)/bin/python -m pip install --quiet --disable-pip-version-check -r requirements-cffconvert.lock)
	@touch $(CFF_STAMP)

book: $(STAMP)  ## render every page at PROFILE (default paper: committed results), then build the book
	$(PY) -m entropic book $(PROFILE_FLAG)

section: $(STAMP)  ## make section S=surrogate P="r_star=4 d=16"
	@test -n "$(S)" || (echo 'usage: make section S=<section> P="name=value ..."' >&2; exit 2)
	$(PY) -m entropic run $(S) $(PROFILE_FLAG) $(P)

pdf: $(STAMP)  ## the whole book as one PDF at PROFILE: _build/pdf/entropic-bound.pdf
	@echo "$(PY) -m entropic book $(PROFILE_FLAG) --no-html"
	@$(call TICKING,rendering the pages,$(PY) -m entropic book $(PROFILE_FLAG) --no-html)
	@echo "$(PY) -m entropic.publish.pdf"
	@$(call TICKING,printing the PDF,$(PY) -m entropic.publish.pdf)

slides: $(STAMP)  ## the lesson of the teaching page, rendered at PROFILE: slides that open offline, a one-page handout
	$(PY) -m entropic.argument.lesson $(PROFILE_FLAG)

test: $(STAMP) $(CFF_STAMP)  ## two processes (tests sharing a built book or a cluster stay together); the 25 slowest last
	$(PY) -m pytest -n 2 --dist loadgroup --durations=25

check: $(STAMP)  ## the paper book and its PDF (make pdf, run by the tests) as a reader meets them: heights, verdicts
	$(MAKE) book
	ENTROPIC_PAPER_BOOK=1 $(PY) -m pytest -q tests/test_paper_book.py

corpora: $(STAMP)  ## App. B's six corpora from their public sources, checked against their pins (MIRROR=URL: a mirror)
	$(PY) -m entropic corpora $(if $(MIRROR),--mirror $(MIRROR))

lint: $(STAMP)
	$(VENV)/bin/ruff check lib tests benchmarks

bench: $(STAMP)  ## batched engine vs one-student-at-a-time loop, see benchmarks/RESULTS.md
	$(PY) benchmarks/bench_engine.py

clean:  ## everything a build, a wheel or the tests leave: the book, its pages, the PDF, MathJax's copy, the wheel
	rm -rf build _build _assets/mathjax .setuptools-build dist lib/*.egg-info entropic-*.whl .pytest_cache .ruff_cache
	find . -path ./.venv -prune -o -name __pycache__ -type d -prune -exec rm -rf {} +
