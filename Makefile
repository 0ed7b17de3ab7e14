# The project's interface: `make run` starts the sandbox, `make test` runs every gate.
# Both install what they need into .venv on first use (and again when pyproject.toml changes).

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
export PYTHONPATH := functions:.

# Each suite is its own timed pytest run; every suite runs, and `make test` fails if any of them failed.
SUITES := unit contract integration workflows infra e2e
# Two workers per suite (pytest-xdist), one per core. `loadfile` keeps a module's tests in one worker, so a
# module-scoped fixture (the running sandbox) is built once; each worker is its own process (own moto, own port).
PARALLEL := -n 2 --dist loadfile

.PHONY: install run test lint unit contract integration workflow-tests infra e2e bench synth workflows clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet '.[infra,sandbox,mcp,dev]'
	touch $(STAMP)

install: $(STAMP)

run: install
	$(BIN)/python -m sandbox

lint: install
	$(BIN)/ruff check functions tests mcp_server app.py
	$(BIN)/ruff format --check functions tests mcp_server app.py
	$(BIN)/mypy
	$(BIN)/lint-imports

unit: install
	$(BIN)/pytest tests/unit -q $(PARALLEL)

contract: install
	$(BIN)/pytest tests/contract -q $(PARALLEL)

integration: install
	$(BIN)/pytest tests/integration -q $(PARALLEL)

workflow-tests: install
	$(BIN)/pytest tests/workflows -q $(PARALLEL)

infra: install
	$(BIN)/pytest tests/infra -q $(PARALLEL)

e2e: install
	$(BIN)/pytest tests/e2e -q $(PARALLEL)

# tests/long (a six-minute operation waited through MCP; it mostly sleeps) runs in the background beside the suites.
test: lint
	@failed=""; times=""; long_log=$$(mktemp); long_start=$$(date +%s); \
	$(BIN)/pytest tests/long -q -s > $$long_log 2>&1 & long_pid=$$!; \
	$(foreach suite,$(SUITES),start=$$(date +%s); \
		$(BIN)/pytest tests/$(suite) -q $(PARALLEL) --durations=5 || failed="$$failed $(suite)"; \
		times="$$times  tests/$(suite): $$(( $$(date +%s) - start )) s\n";) \
	wait $$long_pid || failed="$$failed long"; \
	times="$$times  tests/long: $$(( $$(date +%s) - long_start )) s (in the background)\n"; \
	echo "tests/long:"; cat $$long_log; rm -f $$long_log; \
	printf "Wall time per suite:\n$$times"; \
	if [ -n "$$failed" ]; then echo "Failed suites:$$failed"; exit 1; fi

bench: install
	$(BIN)/pytest tests/bench -q -s

synth: install
	$(BIN)/python app.py

# Regenerate statemachines/*.asl.json from the workflow declarations (functions/controlplane/workflows/).
workflows: install
	$(BIN)/python -m controlplane.workflows

clean:
	rm -rf $(VENV) cdk.out
