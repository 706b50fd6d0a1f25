# The two commands the README gives: `make run` and `make test`.
PYTHON ?= python3
VENV ?= .venv
LEGACY_VENV ?= .venv-legacy
BIN := $(VENV)/bin

.PHONY: run test test-main test-legacy lint format compat clean

$(BIN)/activate:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

$(VENV)/.run-installed: pyproject.toml $(BIN)/activate
	$(BIN)/pip install -q -e .
	touch $@

$(VENV)/.dev-installed: pyproject.toml $(BIN)/activate
	$(BIN)/pip install -q -e '.[dev]'
	touch $@ $(VENV)/.run-installed

# Spark tests: the spark extra plus the Debian jars the Iceberg REST client needs (relocated at first use).
SPARK_DEBS := libhttpclient5-java libhttpcore5-java
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# Deployment tests (tests/deploy) start their own PostgreSQL cluster from Debian's binaries.
# docker/install.sh is the same recipe the Dockerfile runs.
$(VENV)/.spark-installed: pyproject.toml docker/install.sh $(VENV)/.dev-installed
	EMBUCKET_EDITABLE=1 sh docker/install.sh $(BIN)/pip dev,spark,postgres $(SPARK_DEBS) postgresql
	touch $@

# The 4.x connector line (what dbt-snowflake and Superset pin) lives in its own virtualenv:
# the end-to-end tests run again from there against a server started from $(VENV).
$(LEGACY_VENV)/.installed: tests/requirements-legacy.txt
	$(PYTHON) -m venv $(LEGACY_VENV)
	$(LEGACY_VENV)/bin/pip install -q --upgrade pip
	$(LEGACY_VENV)/bin/pip install -q -r tests/requirements-legacy.txt
	touch $@

run: $(VENV)/.run-installed
	$(BIN)/embucket-py serve

test: test-main test-legacy compat

test-main: $(VENV)/.spark-installed
	$(BIN)/python -m pytest tests

test-legacy: $(VENV)/.dev-installed $(LEGACY_VENV)/.installed
	EMBUCKET_SERVER_PYTHON=$(abspath $(BIN)/python) $(LEGACY_VENV)/bin/python -m pytest tests/e2e -p no:cacheprovider

lint: $(VENV)/.dev-installed
	$(BIN)/ruff check embucket_py tests compat
	$(BIN)/ruff format --check embucket_py tests compat

format: $(VENV)/.dev-installed
	$(BIN)/ruff format embucket_py tests compat
	$(BIN)/ruff check --fix embucket_py tests compat

# SQL logic tests: the project's own (compat/slt) and the Snowflake-verified ones
# (../shared/compat/slt). Prints pass rates; fails if a suite drops below its floor in
# compat/floors.json (raise the floors as compatibility grows).
COMPAT_PORT ?= 3999
compat: $(VENV)/.dev-installed
	rm -rf .compat-data
	$(BIN)/embucket-py serve --port $(COMPAT_PORT) --data-dir .compat-data --log-level warning & \
	  pid=$$!; \
	  for i in $$(seq 100); do curl -sf http://127.0.0.1:$(COMPAT_PORT)/health >/dev/null && break; sleep 0.2; done; \
	  $(BIN)/python -m compat.slt_runner --port $(COMPAT_PORT) --floors compat/floors.json --json compat-results.json; \
	  rc=$$?; kill $$pid; exit $$rc

clean:
	rm -rf $(VENV) $(LEGACY_VENV) embucket-data .pytest_cache
