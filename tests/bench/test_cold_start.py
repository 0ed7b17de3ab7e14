"""Cold-start import time of every entry point, beside the frameworks it is built on, in the same run.

Run with `make bench`. Each row imports one entry point in a fresh interpreter; its baseline imports only the
frameworks that entry point is built on, so the ratio is what the project's own code adds (goal: <= 1.3x for
`api.handler`, `steps.handler` and the MCP server, stdio and Lambda):

- `api.handler` vs Powertools' event handler + pydantic + boto3, and, beside it, what a first request adds: the one
  router its path needs (`/clusters/{clusterTag}/nodes`, the heaviest), one unauthenticated request through it, or
  every router and the OpenAPI document (what `/openapi.json` and `/docs` load; the goal is for the import, these
  rows show the rest);
- `steps.handler` vs the same, and a Kubernetes step (the handler, the Kubernetes adapter and the `kubernetes`
  client it loads on first use) vs the same plus `kubernetes`;
- `mcp_server.lambda_handler` vs the bare MCP SDK (its server and streamable HTTP transport), and the stdio server
  (`python -m mcp_server`) vs the SDK's server and stdio transport with httpx, which it calls the API with.

Runs are paired: every round samples every statement once, a baseline beside its entry points, so a busy machine
slows both alike; a row's ratio is the median of its rounds' ratios. CPU time is the steadier figure on a shared
machine (wall time is printed beside it). Bytecode is compiled once, into a cache of the run's own, before
measuring, as the layer and the asset ship it (a shell with PYTHONDONTWRITEBYTECODE would otherwise compile the
project's modules on every import, and the frameworks' not). One figure is chance: CPython's first full garbage
collection comes after a fixed count of allocations, and the frameworks stop just short of it, so an entry point
that allocates a little more pays a whole collection of everything imported before it; the last column is the
ratio with the collector off (the import's own work). A measurement, not a timed assertion.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

RUNS = 9
GOAL = 1.3
FRAMEWORKS = "import boto3, pydantic; from aws_lambda_powertools.event_handler import APIGatewayRestResolver"
MCP_SDK = (
    "import mcp.server, mcp.server.streamable_http_manager, mcp.server.transport_security; "
    "import starlette.applications"
)
MCP_STDIO = "import mcp.server, mcp.server.stdio, httpx"
# A request with no identity: routed, validated and refused (401) without reaching AWS.
FIRST_REQUEST = (
    "api.handler.lambda_handler({'httpMethod': 'GET', 'path': '/clusters/demo/nodes', 'headers': {}, "
    "'requestContext': {'requestId': 'r', 'identity': {}}, 'body': None}, None)"
)
PROBE = (
    "import gc, json, time; gc.disable() if {gc_off} else None; w, c = time.perf_counter(), time.process_time(); "
    "{statement}; print(json.dumps([time.perf_counter() - w, time.process_time() - c]))"
)


@dataclass(frozen=True)
class Row:
    """One import to time; `baseline` names the row it is compared with (a baseline names itself); `goal` marks
    the entry points the issue's ratio is for."""

    name: str
    statement: str
    baseline: str
    goal: bool = False


ROWS = (
    Row("frameworks", FRAMEWORKS, "frameworks"),
    Row("frameworks + kubernetes", f"{FRAMEWORKS}; import kubernetes.client", "frameworks + kubernetes"),
    Row("MCP SDK (HTTP)", MCP_SDK, "MCP SDK (HTTP)"),
    Row("MCP SDK (stdio) + httpx", MCP_STDIO, "MCP SDK (stdio) + httpx"),
    Row("api.handler", "import api.handler", "frameworks", goal=True),
    Row("api: + nodes router", "import api.handler; api.app.resolver_for('/clusters/demo/nodes')", "frameworks"),
    Row("api: + first request (401)", f"import api.handler; {FIRST_REQUEST}", "frameworks"),
    Row("api: + complete app", "import api.handler; api.app.build()", "frameworks"),
    Row("steps.handler", "import steps.handler", "frameworks", goal=True),
    Row(
        "steps.handler, Kubernetes step",
        "import steps.handler, controlplane.adapters.k8s.client, kubernetes.client",
        "frameworks + kubernetes",
    ),
    Row("mcp_server.lambda_handler", "import mcp_server.lambda_handler", "MCP SDK (HTTP)", goal=True),
    Row("mcp_server (stdio)", "import mcp_server.__main__", "MCP SDK (stdio) + httpx", goal=True),
)


def sample(statement: str, env: dict[str, str], gc_off: bool = False) -> tuple[float, float]:
    probe = PROBE.format(statement=statement, gc_off=gc_off)
    output = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, env=env, check=True)
    wall, cpu = json.loads(output.stdout)
    return wall, cpu


@pytest.mark.bench
@pytest.mark.timeout(1800)  # some 250 fresh interpreters, minutes on a busy machine
def test_cold_start_import_times(tmp_path: Path) -> None:
    env = {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}
    env |= {"PYTHONPATH": "functions:.", "PYTHONPYCACHEPREFIX": str(tmp_path / "pycache")}
    for row in ROWS:  # compile the bytecode once, as the bundled layer and asset ship it
        sample(row.statement, env)
    walls: dict[str, list[float]] = {row.name: [] for row in ROWS}
    cpus: dict[str, list[float]] = {row.name: [] for row in ROWS}
    gc_off: dict[str, list[float]] = {row.name: [] for row in ROWS}
    for _ in range(RUNS):
        for row in ROWS:
            wall, cpu = sample(row.statement, env)
            walls[row.name].append(wall)
            cpus[row.name].append(cpu)
            gc_off[row.name].append(sample(row.statement, env, gc_off=True)[1])

    def ratio(row: Row, times: dict[str, list[float]]) -> float:
        return statistics.median(mine / base for mine, base in zip(times[row.name], times[row.baseline], strict=True))

    version, load = sys.version.split()[0], os.getloadavg()[0]
    print(f"\nmedians of {RUNS} paired fresh-interpreter imports (Python {version}, load average {load:.1f})")
    print(f"{'import':31} {'wall ms':>8} {'cpu ms':>7} {'baseline':>24} {'x wall':>6} {'x cpu':>6} {'GC off':>6}")
    for row in ROWS:
        print(
            f"{row.name:31} {statistics.median(walls[row.name]) * 1000:8.1f} "
            f"{statistics.median(cpus[row.name]) * 1000:7.1f} {row.baseline:>24} {ratio(row, walls):6.2f} "
            f"{ratio(row, cpus):6.2f} {ratio(row, gc_off):6.2f}"
        )
    print(f"goal <= {GOAL}x (cpu): " + ", ".join(f"{row.name} {ratio(row, cpus):.2f}x" for row in ROWS if row.goal))
    assert all(value > 0 for values in cpus.values() for value in values)
