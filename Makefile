# Two commands on a fresh machine: `make run` serves the site, `make test` runs every test.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: test typecheck lint bench clean

$(STAMP): requirements/*.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements/dev.txt
	touch $(STAMP)

test: $(STAMP)
	$(BIN)/mypy --strict buraco
	$(BIN)/python tests/run.py

typecheck: $(STAMP)
	$(BIN)/mypy --strict buraco

lint: $(STAMP)
	$(BIN)/ruff check buraco tests bench

bench: $(STAMP)
	$(BIN)/python bench/engine.py

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .hypothesis
