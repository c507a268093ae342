# vsizer — two commands a new user needs:
#   make demo   sets up .venv, installs vsizer, plans the bundled sample, writes ./vsizer-demo/
#   make test   sets up the same .venv with dev tools and runs the test suite
PYTHON ?= python3
VENV   ?= .venv
BIN     = $(VENV)/bin
STAMP   = $(VENV)/.installed-dev

.PHONY: demo test lint bench bench-e2e clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(STAMP): $(BIN)/python pyproject.toml
	$(BIN)/python -m pip install --quiet -e '.[all,dev]'
	touch $(STAMP)

demo: $(STAMP)
	$(BIN)/vsizer plan vsizer/data/samples/inventory_ja.xlsx \
	    --config vsizer/data/samples/scenario.toml \
	    --predict -o vsizer-demo/plan.json -o vsizer-demo/plan.xlsx -o vsizer-demo/report.html

test: $(STAMP)
	$(BIN)/python -m pytest -q

lint: $(STAMP)
	$(BIN)/ruff check vsizer tests benchmarks
	$(BIN)/mypy vsizer

bench: $(STAMP)
	$(BIN)/python benchmarks/bench_placement.py

bench-e2e: $(STAMP)
	$(BIN)/python -m pytest -q -m e2e tests/test_bench_e2e.py

clean:
	rm -rf vsizer-demo .pytest_cache
