"""Cold-start import time of every Lambda entry point, beside the frameworks it is built on, in the same run.

Run with `make bench`. Each row imports one entry point in a fresh interpreter; its baseline imports only the
frameworks that entry point is built on, so the ratio is what the project's own code adds (target: 1.3x):

- `api.handler` vs Powertools' event handler + pydantic + boto3, and, beside it, what a first request adds: the one
  router its path needs (`/clusters/{clusterTag}/nodes`, the heaviest), or every router and the OpenAPI document
  (what `/openapi.json` and `/docs` load; the target is for the import, these two rows show the rest);
- `steps.handler` vs the same, and a Kubernetes step (the handler plus the Kubernetes adapter it loads on first
  use) vs the same plus `kubernetes`;
- `mcp_server.lambda_handler` vs the bare MCP SDK (its server and streamable HTTP transport).

Runs are interleaved (every statement once per round, RUNS rounds) so that a busy machine slows baselines and
entry points alike. Medians of wall time and of CPU time (the steadier figure on a shared machine) are printed;
bytecode is compiled once before measuring, as the layer and the asset ship it. A measurement, not a timed
assertion.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from dataclasses import dataclass

import pytest

RUNS = 7
FRAMEWORKS = "import boto3, pydantic; from aws_lambda_powertools.event_handler import APIGatewayRestResolver"
MCP_SDK = (
    "import mcp.server, mcp.server.streamable_http_manager, mcp.server.transport_security; "
    "import starlette.applications"
)
PROBE = (
    "import json, time; w, c = time.perf_counter(), time.process_time(); {statement}; "
    "print(json.dumps([time.perf_counter() - w, time.process_time() - c]))"
)
ENV = {**os.environ, "PYTHONPATH": "functions:."}


@dataclass(frozen=True)
class Row:
    """One import to time; `baseline` names the row it is compared with (a baseline names itself)."""

    name: str
    statement: str
    baseline: str


ROWS = (
    Row("frameworks", FRAMEWORKS, "frameworks"),
    Row("frameworks + kubernetes", f"{FRAMEWORKS}; import kubernetes", "frameworks + kubernetes"),
    Row("bare MCP SDK", MCP_SDK, "bare MCP SDK"),
    Row("api.handler", "import api.handler", "frameworks"),
    Row(
        "api: import + nodes router",
        "import api.handler; api.app.resolver_for('/clusters/demo/nodes')",
        "frameworks",
    ),
    Row("api: import + complete app", "import api.handler; api.app.build()", "frameworks"),
    Row("steps.handler", "import steps.handler", "frameworks"),
    Row(
        "steps.handler, Kubernetes step",
        "import steps.handler, controlplane.adapters.k8s.client",
        "frameworks + kubernetes",
    ),
    Row("mcp_server.lambda_handler", "import mcp_server.lambda_handler", "bare MCP SDK"),
)


def sample(statement: str) -> tuple[float, float]:
    output = subprocess.run(
        [sys.executable, "-c", PROBE.format(statement=statement)], capture_output=True, text=True, env=ENV, check=True
    ).stdout
    wall, cpu = json.loads(output)
    return wall, cpu


@pytest.mark.bench
def test_cold_start_import_times():
    for row in ROWS:  # compile the bytecode once, as the bundled layer and asset ship it
        sample(row.statement)
    walls: dict[str, list[float]] = {row.name: [] for row in ROWS}
    cpus: dict[str, list[float]] = {row.name: [] for row in ROWS}
    for _ in range(RUNS):
        for row in ROWS:
            wall, cpu = sample(row.statement)
            walls[row.name].append(wall)
            cpus[row.name].append(cpu)
    wall_ms = {name: statistics.median(values) * 1000 for name, values in walls.items()}
    cpu_ms = {name: statistics.median(values) * 1000 for name, values in cpus.items()}
    print(f"\nmedians of {RUNS} interleaved fresh-interpreter imports ({sys.version.split()[0]})")
    print(f"{'import':32} {'wall ms':>8} {'cpu ms':>8} {'baseline':>24} {'x wall':>7} {'x cpu':>7}")
    for row in ROWS:
        base = row.baseline
        print(
            f"{row.name:32} {wall_ms[row.name]:8.1f} {cpu_ms[row.name]:8.1f} {base:>24} "
            f"{wall_ms[row.name] / wall_ms[base]:7.2f} {cpu_ms[row.name] / cpu_ms[base]:7.2f}"
        )
    assert all(value > 0 for value in wall_ms.values())
