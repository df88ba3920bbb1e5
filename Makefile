# Two commands on a fresh machine: `make run` serves the site, `make test` runs every test.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test worker compiled typecheck lint bench clean

$(STAMP): requirements/*.txt
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -r requirements/dev.txt
	touch $(STAMP)

# The analysis's searches compiled by mypyc from their source (buraco/analysis/compiled.py),
# a quarter to a third less CPU. Without a C compiler the build fails, says so, and the analysis
# runs interpreted with the same answers; a build older than the sources is never used.
COMPILED := buraco/analysis/__compiled__/sources.sha256
ENGINE_SOURCES := $(shell find buraco -name '*.py' -not -path '*/__compiled__/*')

$(COMPILED): $(STAMP) $(ENGINE_SOURCES)
	-BURACO_COMPILED=off $(BIN)/python -m buraco.analysis.compiled --if-stale

compiled: $(COMPILED)

run: $(STAMP) $(COMPILED)
	$(BIN)/python manage.py migrate --noinput
	$(BIN)/python manage.py load_examples
	$(BIN)/python manage.py runserver 127.0.0.1:8000

worker: $(STAMP) $(COMPILED)
	$(BIN)/celery -A buraco_site worker -B -s $(VENV)/celerybeat-schedule -Q interactive,bulk,analysis,reverify,luck -l info

test: $(STAMP) $(COMPILED)
	$(BIN)/mypy --strict buraco
	$(BIN)/mypy --config-file mypy-service.ini accounts apikit records analysis reviews pages training luck buraco_site
	$(BIN)/python tests/run.py

typecheck: $(STAMP)
	$(BIN)/mypy --strict buraco
	$(BIN)/mypy --config-file mypy-service.ini accounts apikit records analysis reviews pages training luck buraco_site

lint: $(STAMP)
	$(BIN)/ruff check buraco accounts apikit records analysis reviews pages training luck buraco_site tests bench

bench: $(STAMP) $(COMPILED)
	$(BIN)/python bench/engine.py
	$(BIN)/python bench/ingest.py
	$(BIN)/python bench/analysis.py
	$(BIN)/python bench/luck.py

# The service under gunicorn on PostgreSQL, driven by wrk (docs/benchmarks.md, "Load"):
# e.g. make bench-load LOAD_ARGS="--soak 600 --markdown bench/out/load.md"
.PHONY: bench-load
bench-load: $(STAMP) $(COMPILED)
	$(BIN)/python bench/load.py $(LOAD_ARGS)

clean:
	rm -rf $(VENV) .mypy_cache .pytest_cache .hypothesis buraco/analysis/__compiled__
