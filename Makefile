# The project's interface: `make run` starts the sandbox (and its web console), `make test` runs every gate.
# Both install what they need on first use: .venv (again when pyproject.toml changes), the console's node_modules
# (again when its lock changes), and, for the browser tests, Debian's Chromium.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export PYTHONPATH := functions:.
# Python caches what it compiles (and pytest the test modules and plugins it rewrites: ~640 modules per process):
# every pytest worker, gate and sandbox subprocess after the first reads them instead of compiling again.
unexport PYTHONDONTWRITEBYTECODE

# The suites `make test` runs in one pytest session: each worker's start and each suite's last, lone module are paid
# once, not once per suite (tests/conftest.py prints each suite's summed test time). The browser suite is a session
# of its own: Playwright's sync API keeps an event loop running in its worker, where the MCP tests start their own.
SUITES := unit sandbox contract integration workflows infra e2e
# Two workers per suite (pytest-xdist), one per core. `loadfile` keeps a module's tests in one worker, so a
# module-scoped fixture (the running sandbox) is built once; each worker is its own process (own moto, own port).
# tests/infra runs whole in one worker, so the app is synthesized once (tests/conftest.py: ONE_WORKER_SUITES).
PARALLEL := -n 2 --dist loadfile

CONSOLE_SOURCES := $(shell find frontend/src -type f -not -name schema.d.ts) frontend/index.html \
	frontend/vite.config.ts frontend/tsconfig.json tests/contract/openapi.snapshot.json
CHROMIUM := /usr/bin/chromium
# Root installs packages itself; anyone else through sudo.
AS_ROOT := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

.PHONY: install run test lint unit sandbox contract integration workflow-tests infra e2e browser console console-tests \
	bench soak fuzz synth workflows clean agent-mcp

# uv resolves and installs the project's ~200 packages in parallel (pip alone takes about ten times as long); it is
# installed into the venv itself, so nothing outside the project is needed.
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet uv
	$(BIN)/uv pip install --quiet --python $(BIN)/python '.[infra,sandbox,mcp,dev]'
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

# The MCP server over stdio for a local agent (.kiro/agents/hypd-inst-agent.json runs it): installs what it needs first,
# its output on stderr (stdout is the protocol), and calls the API at INSTANTSTART_API_URL, by default the sandbox of
# `make run` on its PORT, with the token INSTANTSTART_API_TOKEN.
agent-mcp:
	@$(MAKE) --no-print-directory -s install >&2
	@exec $(BIN)/python -m mcp_server --api-url "$${INSTANTSTART_API_URL:-http://127.0.0.1:$${PORT:-8000}/api}"

lint: install
	$(BIN)/ruff check functions tests mcp_server app.py
	$(BIN)/ruff format --check functions tests mcp_server app.py
	$(BIN)/mypy
	$(BIN)/lint-imports

unit: install
	$(BIN)/pytest tests/unit -q $(PARALLEL)

# The sandbox's own tests: the Kubernetes emulator and the moto extensions, strict as the services they stand for.
sandbox: install
	$(BIN)/pytest tests/sandbox -q $(PARALLEL)

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

# The installs and the console's build first, side by side (the infra and e2e suites read the built console). Then
# every gate at once: the unit-to-e2e session is the critical path and runs in front; beside it, their output held
# until it ends: lint, the console's tests (vitest), tests/long (an operation on a scaled clock: it mostly sleeps) and
# the browser session (one worker: it mostly waits on the pages' own timers). Any gate that fails fails the target,
# and the summary names it.
GATES := lint console-tests long browser
test:
	@$(MAKE) --no-print-directory -j3 install console $(CHROMIUM)
	@logs=$$(mktemp -d); \
	gate() { name=$$1; shift; start=$$(date +%s); "$$@" > $$logs/$$name 2>&1; echo $$? > $$logs/$$name.status; \
		echo "$$(( $$(date +%s) - start )) s" > $$logs/$$name.seconds; }; \
	gate lint $(MAKE) --no-print-directory lint & \
	gate console-tests sh -c "cd frontend && npx vitest run" & \
	gate long $(BIN)/pytest tests/long -q -s & \
	gate browser $(BIN)/pytest tests/browser -q --durations=5 & \
	start=$$(date +%s); \
	$(BIN)/pytest $(addprefix tests/,$(SUITES)) -q $(PARALLEL) --durations=10; session=$$?; \
	session_seconds=$$(( $$(date +%s) - start )); \
	wait; failed=""; \
	[ $$session = 0 ] || failed="$$failed unit-to-e2e (its summary names them)"; \
	for name in $(GATES); do \
		echo "$$name:"; cat $$logs/$$name; [ "$$(cat $$logs/$$name.status)" = 0 ] || failed="$$failed $$name"; \
	done; \
	echo "Wall time per gate:"; echo "  $(SUITES) (one session): $$session_seconds s"; \
	for name in $(GATES); do echo "  $$name: $$(cat $$logs/$$name.seconds) (beside it)"; done; \
	rm -rf $$logs; \
	if [ -n "$$failed" ]; then echo "Failed gates:$$failed"; exit 1; fi

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
