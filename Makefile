# vsizer — two commands a new user needs:
#   make demo   sets up .venv, installs vsizer with the one extra the demo uses (report:
#               plotly for the HTML charts; no dev tools), plans the bundled sample (choosing
#               the host model among the shipped ones: --host-model auto), writes ./vsizer-demo/
#   make test   sets up the same .venv with every extra and the dev tools and runs the test suite's
#               fast tier (make test-slow: the slow tier, which CI runs once after it)
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
STAMP   = $(VENV)/.installed-dev
DEMO    = $(VENV)/.installed-demo
ENGINES = $(VENV)/.installed-engines

.PHONY: demo test test-slow lint audit fuzz bench bench-smoke bench-e2e clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[all,dev,fast]'
	touch $(STAMP)

# What the demo needs: vsizer and its report extra (the Excel workbook needs only the
# core dependencies). Skipped when the dev set, a superset, is installed.
$(DEMO): $(BIN)/python pyproject.toml
	@if [ -f $(STAMP) ] && [ $(STAMP) -nt pyproject.toml ]; then :; \
	else $(BIN)/python -m pip install --quiet -e '.[report]'; fi
	touch $(DEMO)

# The distributed engines (Ray, Dask) for their tests (tests/test_engines.py), not
# for the demo: ~1 min to download and install on a fresh machine (docs/scale.md).
$(ENGINES): $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[ray,dask]'
	touch $(ENGINES)

demo: $(DEMO)
	$(BIN)/vsizer plan vsizer/data/samples/inventory_ja.xlsx \
	    --config vsizer/data/samples/scenario.toml --host-model auto \
	    --predict -o vsizer-demo/plan.json -o vsizer-demo/plan.xlsx -o vsizer-demo/report.html

# The fast tier: every test not marked slow (pyproject.toml addopts).
test: $(STAMP)
	$(BIN)/python -m pytest -q

# The slow tier, once in CI (.ci/run): tests marked slow: every script under
# benchmarks/ at its smoke size (tests/test_benchmarks.py), end-to-end CLI runs,
# long property and fuzz runs, real-corpus reads, the browser, the Ray/Dask engines.
test-slow: $(STAMP) $(ENGINES)
	$(BIN)/python -m pytest -q -m slow

lint: $(STAMP)
	$(BIN)/ruff check vsizer tests benchmarks
	$(BIN)/mypy vsizer
	$(BIN)/lint-imports --no-cache

# Known vulnerabilities of the installed dependency set (pip-audit, dev extra).
# Offline (the vulnerability index unreachable) it prints one "skipped" line and
# succeeds; a vulnerability found fails the target.
AUDIT_INDEX ?= https://pypi.org/simple/
audit: $(STAMP)
	@if ! $(BIN)/python -c "import urllib.request as u; u.urlopen('$(AUDIT_INDEX)', timeout=10)" >/dev/null 2>&1; then \
	    echo "audit: skipped: no network (cannot reach $(AUDIT_INDEX))"; \
	elif ! $(BIN)/python -m pip_audit --version >/dev/null 2>&1; then \
	    echo "audit: skipped: pip-audit is not installed (pip install -e '.[dev]')"; \
	else \
	    $(BIN)/python scripts/audit.py; \
	fi

# Long fuzz campaign (docs/reliability.md, Fuzzing): >= 5,000 mutated real inputs of
# every format, each in a forked child with a 60 s limit; prints the figures and
# writes them to fuzz-figures.json, the bad inputs to fuzz-findings/.
FUZZ_RUNS ?= 5000
FUZZ_JOBS ?= 2
FUZZ_SEED ?= 12
fuzz: $(STAMP)
	$(BIN)/python -m tests.fuzz.run --runs $(FUZZ_RUNS) --jobs $(FUZZ_JOBS) --timeout 60 --seed $(FUZZ_SEED) \
	    --json fuzz-figures.json --keep fuzz-findings

# make bench: the placement benchmark at full size. make bench SMOKE=1 (or make
# bench-smoke): every script under benchmarks/ at its smoke size (CI runs them
# once, in make test-slow: tests/test_benchmarks.py).
SMOKE ?=
bench: $(STAMP)
ifeq ($(strip $(SMOKE)),)
	PYTHONPATH=. $(BIN)/python benchmarks/bench_placement.py
else
	@set -e; for script in benchmarks/*.py; do \
	    echo "== $$script --smoke"; PYTHONPATH=. $(BIN)/python $$script --smoke; \
	done
endif

bench-smoke:
	$(MAKE) bench SMOKE=1

bench-e2e: $(STAMP)
	$(BIN)/python -m pytest -q -m e2e tests/test_bench_e2e.py

clean:
	rm -rf vsizer-demo out .pytest_cache fuzz-findings fuzz-replay fuzz-figures.json fuzz-figures.runs.jsonl
