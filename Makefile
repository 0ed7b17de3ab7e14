# The project's interface: `make run` starts the sandbox (and its web console), `make test` runs every gate.
# Both install what they need on first use: .venv (again when pyproject.toml changes), the console's node_modules
# (again when its lock changes), and, for the browser tests, Debian's Chromium.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export PYTHONPATH := functions:.

# The suites `make test` runs in one pytest session: each worker's start and each suite's last, lone module are paid
# once, not once per suite (tests/conftest.py prints each suite's summed test time). The browser suite is a session
# of its own: Playwright's sync API keeps an event loop running in its worker, where the MCP tests start their own.
SUITES := unit contract integration workflows infra e2e
# Two workers per suite (pytest-xdist), one per core. `loadfile` keeps a module's tests in one worker, so a
# module-scoped fixture (the running sandbox) is built once; each worker is its own process (own moto, own port).
# tests/infra runs whole in one worker, so the app is synthesized once (tests/conftest.py: ONE_WORKER_SUITES).
PARALLEL := -n 2 --dist loadfile

CONSOLE_SOURCES := $(shell find frontend/src -type f -not -name schema.d.ts) frontend/index.html \
	frontend/vite.config.ts frontend/tsconfig.json tests/contract/openapi.snapshot.json
CHROMIUM := /usr/bin/chromium
# Root installs packages itself; anyone else through sudo.
AS_ROOT := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: install run test lint unit contract integration workflow-tests infra e2e browser console console-tests \
	bench soak fuzz synth workflows clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet '.[infra,sandbox,mcp,dev]'
	touch $(STAMP)

install: $(STAMP)

frontend/node_modules/.installed: frontend/package.json frontend/package-lock.json
	cd frontend && npm ci --no-audit --no-fund --loglevel=error
	touch $@

# The console's build: API types generated from the OpenAPI document, type-checked, bundled into frontend/dist.
frontend/dist/index.html: frontend/node_modules/.installed $(CONSOLE_SOURCES)
	cd frontend && npm run --silent build

console: frontend/dist/index.html

# The console's component tests (vitest + Testing Library).
console-tests: frontend/dist/index.html
	cd frontend && npx vitest run

$(CHROMIUM):
	$(AS_ROOT) apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $(AS_ROOT) apt-get install -y -qq chromium

run: install console
	$(BIN)/python -m sandbox

lint: install
	$(BIN)/ruff check functions tests mcp_server app.py
	$(BIN)/ruff format --check functions tests mcp_server app.py
	$(BIN)/mypy
	$(BIN)/lint-imports

unit: install
	$(BIN)/pytest tests/unit -q $(PARALLEL)

# tests/contract validates the state machines with the console's pinned asl-validator (npm).
contract: install frontend/node_modules/.installed
	$(BIN)/pytest tests/contract -q $(PARALLEL)

integration: install
	$(BIN)/pytest tests/integration -q $(PARALLEL)

workflow-tests: install
	$(BIN)/pytest tests/workflows -q $(PARALLEL)

infra: install
	$(BIN)/pytest tests/infra -q $(PARALLEL)

e2e: install
	$(BIN)/pytest tests/e2e -q $(PARALLEL)

browser: install console $(CHROMIUM)
	$(BIN)/pytest tests/browser -q $(PARALLEL)

# The console's tests run first, on both cores. Then the unit-to-e2e session runs in front while two sessions run
# beside it, their output held until it ends: browser (one worker: it mostly waits on the pages' own timers, and
# fills the cores the session's workers leave idle while they wait) and tests/long (a six-minute operation; it
# mostly sleeps).
test: lint console $(CHROMIUM)
	@failed=""; times=""; long_log=$$(mktemp); browser_log=$$(mktemp); \
	(start=$$(date +%s); $(BIN)/pytest tests/long -q -s; status=$$?; \
		echo "took $$(( $$(date +%s) - start )) s"; exit $$status) > $$long_log 2>&1 & long_pid=$$!; \
	start=$$(date +%s); \
	(cd frontend && npx vitest run) || failed="$$failed console"; \
	times="$$times  frontend (vitest): $$(( $$(date +%s) - start )) s\n"; \
	(start=$$(date +%s); $(BIN)/pytest tests/browser -q --durations=5; status=$$?; \
		echo "took $$(( $$(date +%s) - start )) s"; exit $$status) > $$browser_log 2>&1 & browser_pid=$$!; \
	start=$$(date +%s); \
	$(BIN)/pytest $(addprefix tests/,$(SUITES)) -q $(PARALLEL) --durations=10 || failed="$$failed unit-to-e2e (its summary names them)"; \
	times="$$times  $(SUITES) (one session): $$(( $$(date +%s) - start )) s\n"; \
	wait $$browser_pid || failed="$$failed browser"; \
	times="$$times  tests/browser: $$(tail -n 1 $$browser_log | sed 's/took //') (beside the session)\n"; \
	wait $$long_pid || failed="$$failed long"; \
	times="$$times  tests/long: $$(tail -n 1 $$long_log | sed 's/took //') (beside the session)\n"; \
	echo "tests/browser:"; cat $$browser_log; echo "tests/long:"; cat $$long_log; rm -f $$browser_log $$long_log; \
	printf "Wall time per suite:\n$$times"; \
	if [ -n "$$failed" ]; then echo "Failed suites:$$failed"; exit 1; fi

bench: install
	$(BIN)/pytest tests/bench -q -s

# Outside `make test`, minutes of both cores each. The soak: 20 one-request pipelines at once in one sandbox, every
# operation failing 1-3 times at random steps and resumed until it succeeds, then every cluster deleted and the
# simulated account checked empty (SOAK_SEED=<n> repeats a run, SOAK_PIPELINES=<n> resizes it). The fuzz at full size:
# 25 examples per operation and mode, each request sent as every role (the default suite runs 6).
soak: install
	SOAK=1 $(BIN)/pytest tests/soak -q -s

fuzz: install
	FUZZ_EXAMPLES=25 $(BIN)/pytest tests/e2e/test_fuzz_api.py -q -s --timeout=1800

synth: install
	$(BIN)/python app.py

# Regenerate statemachines/*.asl.json from the workflow declarations (functions/controlplane/workflows/).
workflows: install
	$(BIN)/python -m controlplane.workflows

clean:
	rm -rf $(VENV) cdk.out frontend/node_modules frontend/dist
