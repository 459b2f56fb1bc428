# Every target documents itself: `make help` lists them.
SHELL := /bin/bash
VENV ?= .venv
PYTHON ?= python3
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.DEFAULT_GOAL := help
.PHONY: help setup web-setup lint format typecheck test test-only test-fast bench fuzz openapi openapi-check

help: ## List the targets and what they do
	@grep -hE '^[a-zA-Z_-]+:.*## ' $(MAKEFILE_LIST) | \
		awk 'BEGIN {FS = ":.*## "}; {printf "  make %-16s %s\n", $$1, $$2}'

# The solver's C searches (setup.py builds them): a change to one rebuilds the extension.
ACCEL_SOURCES := $(wildcard app/engine/solver/*.c app/engine/solver/*.h)

# Every install takes the lock's exact pins, checked against their hashes
# (requirements/dev.txt: the runtime's and the dev group's; runtime.txt: the runtime's
# alone, as the image), then the project itself without dependencies.
LOCK_DEV := requirements/dev.txt
LOCK_RUN := requirements/runtime.txt

$(STAMP): pyproject.toml setup.py $(LOCK_DEV) $(ACCEL_SOURCES)
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade 'pip>=25.1'
	$(PY) -m pip install --quiet --require-hashes -r $(LOCK_DEV)
	$(PY) -m pip install --quiet --no-deps -e .
	@touch $(STAMP)

# Serving needs Python alone, and the runtime dependencies alone: `make run` installs the
# project without its dev group (RUN_STAMP); `setup` adds the dev group (and nothing of
# Node) for the tests and tools.
RUN_STAMP := $(VENV)/.installed-run

$(RUN_STAMP): pyproject.toml setup.py $(LOCK_RUN) $(ACCEL_SOURCES)
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade 'pip>=25.1'
	$(PY) -m pip install --quiet --require-hashes -r $(LOCK_RUN)
	$(PY) -m pip install --quiet --no-deps -e .
	@touch $(RUN_STAMP)

# The lock, from pyproject.toml's ranges: every platform's pins (--universal) for
# Python 3.11, with their hashes. The runtime's pins are taken from the dev lock's (a
# constraint), so that the tests run on the very versions the image ships. Run it after
# changing a dependency, and commit both.
LOCK_FLAGS := --universal --python-version 3.11 --generate-hashes --quiet

.PHONY: lock
lock: ## Write requirements/*.txt, the pinned and hashed dependencies every install takes, from pyproject.toml
	@test -x $(VENV)/bin/uv || { test -x $(PY) || $(PYTHON) -m venv $(VENV); $(PY) -m pip install --quiet 'uv>=0.9,<1'; }
	$(VENV)/bin/uv pip compile pyproject.toml --group dev $(LOCK_FLAGS) -o $(LOCK_DEV)
	$(VENV)/bin/uv pip compile pyproject.toml --constraint $(LOCK_DEV) $(LOCK_FLAGS) -o $(LOCK_RUN)

setup: $(STAMP) ## Create the virtual environment and install the project with its dev group (Python only)

# The Node.js tools, each pinned by its package-lock.json and installed by `npm ci` under
# the machine's Node.js, for the test targets and `make sdk` alone:
# - clients/ts: openapi-typescript, openapi-fetch and tsc (tests/clients/test_typescript.py,
#   and tsc --strict over the typescript-fetch client);
# - tools/spectral: Spectral, the spec's linter (`make spec-lint`).
TS_DIR := clients/ts
TS_STAMP := $(TS_DIR)/node_modules/.installed
SPECTRAL_DIR := tools/spectral
SPECTRAL_STAMP := $(SPECTRAL_DIR)/node_modules/.installed

$(TS_STAMP): $(TS_DIR)/package.json $(TS_DIR)/package-lock.json
	cd $(TS_DIR) && npm ci --no-audit --no-fund --loglevel=error
	@touch $(TS_STAMP)

$(SPECTRAL_STAMP): $(SPECTRAL_DIR)/package.json $(SPECTRAL_DIR)/package-lock.json
	cd $(SPECTRAL_DIR) && npm ci --no-audit --no-fund --loglevel=error
	@touch $(SPECTRAL_STAMP)

.PHONY: node-setup spec-lint sdk
node-setup: $(TS_STAMP) $(SPECTRAL_STAMP) ## Install the Node.js tools the tests use (npm ci: TypeScript client check, Spectral)

spec-lint: node-setup ## Lint openapi/openapi.json with Spectral (.spectral.yaml): no error, no warning
	$(SPECTRAL_DIR)/node_modules/.bin/spectral lint openapi/openapi.json \
		--ruleset .spectral.yaml --fail-severity=hint --display-only-failures

SDK_DIR ?= sdk

sdk: setup node-setup ## Generate the clients from openapi/openapi.json into sdk/ (SDK_DIR; git ignores it): clients/generate.py
	$(PY) -m clients.generate $(SDK_DIR)

# The browser test (tests/web) drives Debian's Chromium with playwright-core, pinned in
# tests/web/package-lock.json. Chromium comes from apt (as root) when it is missing.
CHROMIUM ?= /usr/bin/chromium
WEB_TESTS := tests/web
WEB_STAMP := $(WEB_TESTS)/node_modules/.installed

$(WEB_STAMP): $(WEB_TESTS)/package.json $(WEB_TESTS)/package-lock.json
	cd $(WEB_TESTS) && npm ci --no-audit --no-fund --loglevel=error
	@touch $(WEB_STAMP)

web-setup: $(WEB_STAMP) ## Install what the browser test needs: Chromium (apt, when missing) and playwright-core (npm ci)
	@if [ -x $(CHROMIUM) ]; then :; \
	elif [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null; then \
		echo "Installing Debian's chromium for the browser test"; \
		apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium; \
	else \
		echo "No Chromium at $(CHROMIUM): install Debian's chromium package (the browser test skips)"; \
	fi

SCREENSHOT_DIR ?= var/screenshots

.PHONY: screenshots
screenshots: setup web-setup ## Play the web client in Chromium at desktop, phone upright and sideways (and a small phone), writing screenshots to $(SCREENSHOT_DIR)
	SCREENSHOT_DIR=$(abspath $(SCREENSHOT_DIR)) $(PY) -m pytest tests/web -p no:cacheprovider -q $(ARGS)
	@ls $(SCREENSHOT_DIR)

lint: setup ## Lint and check formatting (ruff), the import contracts (import-linter), each domain's tables its own (tools/own_tables.py), no measured figure in app/ (tools/no_figures.py), the Dockerfile (hadolint) and the entrypoints (shellcheck)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/lint-imports --no-cache
	$(PY) -m tools.own_tables
	$(PY) -m tools.no_figures
	$(VENV)/bin/hadolint Dockerfile
	$(VENV)/bin/shellcheck docker/entrypoint.sh tests/image/standins/*/docker-entrypoint.sh

format: setup ## Reformat the code and apply safe lint fixes
	$(VENV)/bin/ruff format .
	$(VENV)/bin/ruff check --fix .

typecheck: setup ## Type-check app, tests, bench, clients, tools and the docs' hooks (mypy --strict)
	$(VENV)/bin/mypy

# Two workers (the machines have two cores), a test file to a worker: a module's tests
# share its fixtures and servers.
PYTEST_WORKERS ?= -n 2 --dist loadfile
# tests/image runs in image-test, around a Docker engine of its own.
NOT_IMAGE := --ignore=tests/image

test-only: setup node-setup ## Run the test suite alone (pytest; pass ARGS=... for more)
	$(PY) -m pytest $(PYTEST_WORKERS) $(NOT_IMAGE) $(ARGS)

test-fast: setup ## Every test but the slow ones (servers, fuzzing, clients, playouts, searches), both databases, no lint
	$(PY) -m pytest $(PYTEST_WORKERS) $(NOT_IMAGE) -m "not slow" $(ARGS)

.PHONY: check
check: lint typecheck ## The inner loop: lint, types, and the fast tests (those on both databases on SQLite alone)
	$(PY) -m pytest $(PYTEST_WORKERS) $(NOT_IMAGE) -m "not slow" -k "not postgresql" -q $(ARGS)

# The floors of pyproject.toml's ranges are promises too: test-lowest installs every direct
# dependency at the lowest version its range allows (uv's lowest-direct resolution, in a
# virtual environment of its own) and runs the fast suite on them.
LOWEST_VENV := .venv-lowest
LOWEST_STAMP := $(LOWEST_VENV)/.installed

$(LOWEST_STAMP): pyproject.toml setup.py $(ACCEL_SOURCES)
	@test -x $(LOWEST_VENV)/bin/python || $(PYTHON) -m venv $(LOWEST_VENV)
	$(LOWEST_VENV)/bin/python -m pip install --quiet 'uv>=0.9,<1'
	$(LOWEST_VENV)/bin/uv pip install --quiet --python $(LOWEST_VENV)/bin/python \
		--resolution lowest-direct -e . --group dev
	@touch $(LOWEST_STAMP)

.PHONY: test-lowest
test-lowest: $(LOWEST_STAMP) ## The fast suite on the lowest version of each dependency pyproject.toml allows
	$(LOWEST_VENV)/bin/python -m pytest $(PYTEST_WORKERS) $(NOT_IMAGE) -m "not slow" -p no:cacheprovider $(ARGS)

test: setup node-setup web-setup lint spec-lint typecheck docs-build test-only test-lowest image-test ## Set up, then lint, type-check and run the whole test suite, the image's included

# The image test (tests/image/harness.py says each step): Debian's docker.io, mmdebstrap and
# docker-compose installed when missing; a Docker engine of its own on a private socket,
# started with --iptables=false --ip-forward=false (the machine's firewall and forwarding
# stay as they are) and stopped by its PID; the image built and run as ops run it, and
# deploy/compose.yaml started. Images stay cached in IMAGE_CACHE (gitignored) between runs.
IMAGE_CACHE ?= .cache/image

.PHONY: image-test
image-test: setup ## Build the image in a Docker engine of its own and test it as ops run it (tests/image; root)
	$(PY) -m tests.image.harness --cache $(IMAGE_CACHE) -- \
		$(PY) -m pytest tests/image -p no:cacheprovider --durations=0 $(ARGS)

# The docs site (mkdocs.yml): MkDocs with the Material theme; docs/hooks.py makes the
# problem catalogue from the spec as it builds.
DOCS_PORT ?= 8001
export NO_MKDOCS_2_WARNING := 1

.PHONY: docs docs-build
docs: setup ## Serve the docs site on http://127.0.0.1:$(DOCS_PORT), rebuilt as the files change
	$(VENV)/bin/mkdocs serve --dev-addr 127.0.0.1:$(DOCS_PORT)

docs-build: setup ## Build the docs site into site/ with --strict: a broken link or anchor fails it
	$(VENV)/bin/mkdocs build --strict --quiet

fuzz: setup ## Run schemathesis alone against a live server, printing its report (FUZZ_SEED=N for another seed)
	$(PY) -m pytest tests/clients/test_fuzz.py -s -q

bench: setup ## Run the benchmarks and print their figures
	$(PY) -m bench

HOST ?= 127.0.0.1
PORT ?= 8000
export DATABASE_URL ?= sqlite:///./var/tripeaks.sqlite3

.PHONY: run migrate openapi openapi-check
migrate: $(RUN_STAMP) ## Apply the migrations to DATABASE_URL (alembic upgrade head)
	$(VENV)/bin/alembic upgrade head

# The production server itself (python -m app.ops.serve: every setting applies, WORKERS,
# MAX_HEADER_BYTES and the rest), installed with the runtime dependencies alone.
run: migrate ## Install (runtime dependencies only), migrate, and serve on $(HOST):$(PORT) as in production (python -m app.ops.serve; every setting from the environment)
	HOST=$(HOST) PORT=$(PORT) $(PY) -m app.ops.serve

openapi: setup ## Write openapi/openapi.json from the app
	$(PY) -m app.openapi write

openapi-check: setup ## Fail when openapi/openapi.json differs from the app
	$(PY) -m app.openapi check
