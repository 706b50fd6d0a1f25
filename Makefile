# The two commands the README gives: `make run` and `make test`.
PYTHON ?= python3
VENV ?= .venv
LEGACY_VENV ?= .venv-legacy
BIN := $(VENV)/bin

.PHONY: run test test-main test-legacy reliability test-tools test-superset lint format compat clean

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

# The tools people point at the server, each in its own virtualenv because each pins its own
# dependencies: dbt-snowflake (connector 4.x), Snowflake CLI, Apache Superset (SQLAlchemy 1.4).
DBT_VENV ?= .venv-dbt
SNOW_VENV ?= .venv-snow
SUPERSET_VENV ?= .venv-superset

$(DBT_VENV)/.installed: tests/tools/requirements-dbt.txt
	$(PYTHON) -m venv $(DBT_VENV)
	$(DBT_VENV)/bin/pip install -q --upgrade pip
	$(DBT_VENV)/bin/pip install -q -r tests/tools/requirements-dbt.txt
	touch $@

$(SNOW_VENV)/.installed: tests/tools/requirements-snow.txt
	$(PYTHON) -m venv $(SNOW_VENV)
	$(SNOW_VENV)/bin/pip install -q --upgrade pip
	$(SNOW_VENV)/bin/pip install -q -r tests/tools/requirements-snow.txt
	touch $@

# About 850 MB; installs in 1-2 minutes from a package mirror.
$(SUPERSET_VENV)/.installed: tests/tools/requirements-superset.txt
	$(PYTHON) -m venv $(SUPERSET_VENV)
	$(SUPERSET_VENV)/bin/pip install -q --upgrade pip
	$(SUPERSET_VENV)/bin/pip install -q -r tests/tools/requirements-superset.txt
	touch $@

# dbt and Snowflake CLI from their venvs against a server from $(VENV); snowflake-sqlalchemy (and
# pandas) from the legacy venv, where its 1.x line runs on connector 4.x as Superset uses it.
test-tools: $(VENV)/.dev-installed $(LEGACY_VENV)/.installed $(DBT_VENV)/.installed $(SNOW_VENV)/.installed
	$(BIN)/python -m pytest tests/tools --ignore=tests/tools/test_sqlalchemy.py --ignore=tests/tools/test_pd_writer.py --ignore=tests/tools/test_superset.py
	EMBUCKET_SERVER_PYTHON=$(abspath $(BIN)/python) $(LEGACY_VENV)/bin/python -m pytest tests/tools/test_sqlalchemy.py tests/tools/test_pd_writer.py -p no:cacheprovider

test-superset: $(VENV)/.dev-installed $(SUPERSET_VENV)/.installed
	$(BIN)/python -m pytest tests/tools/test_superset.py

run: $(VENV)/.run-installed
	$(BIN)/embucket-py serve

test: test-main test-legacy compat test-tools test-superset

test-main: $(VENV)/.spark-installed
	$(BIN)/python -m pytest tests --ignore=tests/tools

test-legacy: $(VENV)/.dev-installed $(LEGACY_VENV)/.installed
	EMBUCKET_SERVER_PYTHON=$(abspath $(BIN)/python) $(LEGACY_VENV)/bin/python -m pytest tests/e2e -p no:cacheprovider

# The long forms of the load and fault suites: print their figures (several minutes).
reliability: $(VENV)/.dev-installed
	$(BIN)/python -m tests.reliability.suites --sessions 32 --seconds 60 --writers 16

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
	rm -rf $(VENV) $(LEGACY_VENV) $(DBT_VENV) $(SNOW_VENV) $(SUPERSET_VENV) embucket-data .pytest_cache
