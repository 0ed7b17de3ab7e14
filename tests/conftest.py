"""Shared fixtures: a running sandbox (real handlers, real workflows, moto, Kubernetes emulator)."""

from __future__ import annotations

import gc
import json
import socket
import ssl
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from typing import Any

import boto3
import httpx
import pytest
import uvicorn
from xdist.scheduler import LoadFileScheduling

from controlplane.models.operations import TERMINAL_STATUSES
from sandbox.runtime import HOME_REGION, Sandbox, SandboxOptions
from sandbox.server.app import build_app


def free_port() -> int:
    """A port for a server in another process (which binds it itself)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def bound_socket() -> socket.socket:
    """A socket on a port the system picked, kept bound until the server takes it: no other process (an xdist
    worker) can take the port in between. The TCP protocol is named so that asyncio sets TCP_NODELAY on it
    (with proto 0, every response would wait ~40 ms for a delayed ACK)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.bind(("127.0.0.1", 0))
    return sock


@cache
def aws_client(service: str, region_name: str | None = None) -> Any:
    """A boto3 client of the sandbox's account (moto), built once per process: building one costs more than the
    calls the tests make with it."""
    return boto3.client(service, region_name=region_name)  # type: ignore[call-overload]


# The sandbox serves plain HTTP, yet httpx builds a TLS context (loading the CA bundle) for every client unless it is
# handed one: one, built once, for the many short-lived clients of the tests.
PLAIN_HTTP = ssl.create_default_context()

# The simulated account's timings in tests, near zero (sandbox.runtime.SandboxOptions says what each one is).
SANDBOX_TIMINGS = {
    "seconds_to_active": 0.05,
    "poll_seconds": 0,
    "seconds_per_log_line": 0.02,
    "seconds_per_download": 0.05,
    "seconds_to_load_model": 0.05,
}


@dataclass
class RunningSandbox:
    sandbox: Sandbox
    base_url: str
    # A response's time limit: the soak's twenty operations at once on two shared cores answer slower.
    request_seconds: float = 60

    def client(self, token: str | None = "sandbox-admin") -> httpx.Client:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        return httpx.Client(
            base_url=f"{self.base_url}/api", headers=headers, timeout=self.request_seconds, verify=PLAIN_HTTP
        )

    def build_cluster(
        self,
        tag: str,
        *,
        region: str = "us-west-2",
        zone: str = "us-west-2c",
        hyperpod: bool = True,
        instances: int = 1,
        storage: bool = False,
        features: dict | None = None,
        then: Sequence[tuple[str, str, dict | None]] = (),
    ) -> None:
        """Build a cluster stage by stage through the API, each operation succeeding before the next: EKS in
        `region`, its dependencies, unless `hyperpod` is false one HyperPod group of `instances` ml.g6.4xlarge in
        `zone`, then storage, `features` and the `then` requests (`(method, path, body)`) if asked."""
        group = {"availabilityZone": zone, "instanceType": "ml.g6.4xlarge", "instanceCount": instances}
        steps = [
            ("POST", "/clusters/eks", {"clusterTag": tag, "region": region}),
            ("POST", f"/clusters/{tag}/dependencies", None),
            *([("POST", f"/clusters/{tag}/hyperpod", group)] if hyperpod else []),
            *([("POST", f"/clusters/{tag}/storage", {})] if storage else []),
            *([("PATCH", f"/clusters/{tag}/features", features)] if features else []),
            *then,
        ]
        with self.client() as api:
            for method, path, body in steps:
                accepted = api.request(method, path, json=body)
                assert accepted.status_code == 202, (path, accepted.text)
                operation = self.wait_terminal(accepted.json()["operationId"])
                assert operation["status"] == "SUCCEEDED", (path, operation.get("error"))

    def wait_terminal(self, operation_id: str, limit_seconds: float = 90) -> dict:
        deadline = time.monotonic() + limit_seconds
        with self.client("sandbox-viewer") as api:
            while True:
                operation = api.get(f"/operations/{operation_id}/wait", params={"timeoutSeconds": 20}).json()
                if operation["status"] in TERMINAL_STATUSES:
                    return operation
                if time.monotonic() > deadline:
                    print_execution_tail(operation)
                    return operation


def print_execution_tail(operation: dict, events: int = 12) -> None:
    """Print where an operation that outlived its test's limit is parked: the last events of its latest execution
    (pytest shows a failing test's output)."""
    stepfunctions = boto3.client("stepfunctions", region_name=HOME_REGION)
    runs = [
        execution
        for machine in stepfunctions.list_state_machines()["stateMachines"]
        for execution in stepfunctions.list_executions(stateMachineArn=machine["stateMachineArn"])["executions"]
        if execution["name"].startswith(operation["operationId"])
    ]
    print(f"{operation['operationId']} still {operation['status']} at {operation.get('currentStep')}")
    if not runs:
        return
    latest = max(runs, key=lambda execution: execution["startDate"])
    history = stepfunctions.get_execution_history(executionArn=latest["executionArn"])["events"]
    print(f"{latest['name']} is {latest['status']}; its last events:")
    for event in history[-events:]:
        details = next((value for key, value in event.items() if key.endswith("EventDetails")), {})
        print(f"  {event['id']} {event['timestamp']:%H:%M:%S.%f} {event['type']} {json.dumps(details)[:300]}")


@contextmanager
def serve_asgi(app: Any, sock: socket.socket) -> Iterator[None]:
    """Serve an ASGI app on `sock` (from `bound_socket`) in a thread until the block ends."""
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    while not server.started:
        time.sleep(0.02)
    try:
        yield
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        sock.close()


@contextmanager
def serve_sandbox(**timings: float) -> Iterator[RunningSandbox]:
    """A sandbox with these timings (`SandboxOptions`' fields), served on a free port until the block ends."""
    sock = bound_socket()
    base_url = f"http://127.0.0.1:{sock.getsockname()[1]}"
    sandbox = Sandbox(SandboxOptions(kubernetes_url=f"{base_url}/k8s", **timings))
    sandbox.start()
    try:
        with serve_asgi(build_app(sandbox), sock):
            yield RunningSandbox(sandbox=sandbox, base_url=base_url)
    finally:
        sandbox.stop()


# The sandbox starts as a new account: 5 VPCs, internet gateways, NAT gateways per AZ and Elastic IPs per Region.
NETWORK_QUOTAS = (
    ("vpc", "VPCs per Region"),
    ("vpc", "Internet gateways per Region"),
    ("vpc", "NAT gateways per Availability Zone"),
    ("ec2", "EC2-VPC Elastic IPs"),
)
REGIONS_WITH_MANY_CLUSTERS = ("us-west-2", "us-east-1", "eu-west-1")
MANY_CLUSTERS = 100


def raise_network_quotas(sandbox: Sandbox, value: int = MANY_CLUSTERS) -> None:
    """Raise stage 1's network quotas in the Regions where test modules build clusters, as an account owner who
    asked AWS for more would: one module of the e2e or workflow suites builds dozens of clusters."""
    for region in REGIONS_WITH_MANY_CLUSTERS:
        for service, name in NETWORK_QUOTAS:
            sandbox.quotas.set(region, service, name, value)


@pytest.fixture(scope="module")
def running_sandbox() -> Iterator[RunningSandbox]:
    """The e2e and workflow suites' sandbox (one per module): timings near zero, network quotas raised."""
    with serve_sandbox(**SANDBOX_TIMINGS) as running:
        raise_network_quotas(running.sandbox)
        yield running


@pytest.fixture
def operator(running_sandbox: RunningSandbox) -> Iterator[httpx.Client]:
    """The API as a caller with the operator role (jobs, endpoints, downloads)."""
    with running_sandbox.client("sandbox-operator") as api:
        yield api


# --- `make test` runs several suites in one session: each suite's summed test time, and the suites that failed ---

_suite_seconds: dict[str, float] = {}
_failed_suites: set[str] = set()


def suite_of(nodeid: str) -> str:
    """`tests/e2e/test_paging.py::test_x` → `e2e`."""
    parts = nodeid.split("/")
    return parts[1] if len(parts) > 2 and parts[0] == "tests" else parts[0]


# Suites whose tests all run in one worker: their modules share a session fixture too costly to build in each (infra:
# one CDK synthesis through jsii, ~15 s of CPU, instead of one per worker).
ONE_WORKER_SUITES = ("infra",)


class SuiteOrFileScheduling(LoadFileScheduling):
    """xdist's `loadfile`, with each suite of `ONE_WORKER_SUITES` one unit of work instead of one per module."""

    def _split_scope(self, nodeid: str) -> str:
        suite = suite_of(nodeid)
        return f"tests/{suite}" if suite in ONE_WORKER_SUITES else super()._split_scope(nodeid)


# The suites by what one of their work units costs, dearest first. xdist hands each worker one unit, then the next in
# collection order as each finishes: with the long units (the infra suite's one, the workflow and e2e modules that
# each build clusters) taken first and the unit suite's many short modules last, both workers end close together.
SUITES_DEAREST_FIRST = ("infra", "workflows", "e2e", "contract", "integration", "sandbox", "unit")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Order the collection (and so xdist's queue of work units) by `SUITES_DEAREST_FIRST`, stably."""
    rank = {suite: index for index, suite in enumerate(SUITES_DEAREST_FIRST)}
    items.sort(key=lambda item: rank.get(suite_of(item.nodeid), len(rank)))


# The cyclic collector in a test process: every module is imported by the end of collection, and the sandbox's
# services (moto's backends, the emulator's stores, Step Functions' histories) hold hundreds of thousands of objects
# that live as long as their sandbox. With Python's thresholds (700, 10, 10) the collector spent a fifth of a workflow
# module's CPU scanning them again and again; what collection imported is frozen (never scanned) and the young
# generation collected every 50,000 allocations instead. Cycles are still freed, only later.
GC_THRESHOLDS = (50_000, 20, 100)


def pytest_collection_finish(session: pytest.Session) -> None:
    gc.collect()
    gc.freeze()
    gc.set_threshold(*GC_THRESHOLDS)


@pytest.hookimpl(trylast=True)
def pytest_unconfigure(config: pytest.Config) -> None:
    """pytest collects every generation at a session's end twice: for its unraisable-exception check (in its own
    `pytest_unconfigure`, which runs before this one), then again in its cleanup. The first frees what is
    unreachable and reports what any finalizer raised; by the second, only what is still alive is left, ~1 s of
    CPU to walk in a process that ran the sandbox suites. Frozen, it is not walked again."""
    gc.freeze()


def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> LoadFileScheduling | None:
    return SuiteOrFileScheduling(config, log) if config.getvalue("dist") == "loadfile" else None


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    suite = suite_of(report.nodeid)
    _suite_seconds[suite] = _suite_seconds.get(suite, 0.0) + report.duration
    if report.failed:
        _failed_suites.add(suite)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    if len(_suite_seconds) < 2:
        return
    terminalreporter.write_line("Test time per suite (setup, call and teardown, summed over the workers):")
    for suite, seconds in sorted(_suite_seconds.items(), key=lambda item: -item[1]):
        terminalreporter.write_line(f"  tests/{suite}: {seconds:.0f} s")
    if _failed_suites:
        terminalreporter.write_line(f"Failed suites: {' '.join(sorted(_failed_suites))}")
