"""The soak: 20 one-request pipelines (`POST /clusters`) at once in one sandbox, every operation failing 1–3 times at
random steps; each failed operation is resumed until it SUCCEEDS, then every cluster is deleted (plan, confirm; its
delete failing and resumed the same way). Afterwards the simulated account holds nothing the clusters brought (every
resource kind compared with a snapshot taken before: network, EKS, HyperPod, FSx, IAM, buckets, forwarding rules,
Prometheus workspaces, the control plane's table items, Kubernetes API servers) but what deletion keeps by design,
and no operation or execution is running.

Kept by design: each cluster's data bucket (the storage stage's; its data is the user's, README: "Data buckets are
kept"), the control plane's history (the operations, the audit trail, HyperPod's events received) and the items of
the tables with a TTL, which expire by themselves (confirmation tokens, idempotency records, event-wait signals).

Faults are the sandbox's step faults kept for one cluster (`add_fault(..., cluster_tag=)`), so each operation fails
where its plan says; the seeded RNG makes a run repeatable (`SOAK_SEED`, printed). Run with `make soak`.
"""

from __future__ import annotations

import os
import random
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass, field, replace

import httpx
import pytest

from controlplane.adapters.aws.tables import TABLES
from controlplane.core.naming import data_bucket_name
from controlplane.models.operations import TERMINAL_STATUSES, OperationKind
from controlplane.settings import Settings
from controlplane.workflows.definitions import WORKFLOWS
from sandbox.runtime import ACCOUNT_ID, HOME_REGION
from tests.conftest import SANDBOX_TIMINGS, RunningSandbox, raise_network_quotas, serve_sandbox
from tests.soak import account
from tests.workflows.confirm import confirmed

REGION = "us-west-2"
OPERATION_LIMIT_SECONDS = 900
MAX_RESUMES = 8
# A wait's long poll answers within 20 s when a core is free; under the soak's load, minutes.
REQUEST_SECONDS = 600
FAULT = "SandboxFaultInjected"
KINDS = {"create": OperationKind.CREATE_CLUSTER, "delete": OperationKind.DELETE_EKS_CLUSTER}
PHASES = tuple(KINDS)
# The control plane's history, kept by design, by the settings' table field: whole tables, and in the events table the
# events and latest facts (each cluster's remediation policy beside them goes with the cluster).
HISTORY = {"operations_table": ("",), "audit_table": ("",), "events_table": ("event#", "latest#")}


def fault_steps(kind: OperationKind, fsx: bool) -> list[str]:
    """The steps every run of `kind` reaches (a poll's check on its first round): the FSx branch only with `fsx`."""
    return [
        task.step
        for _, task in WORKFLOWS[kind].tasks()
        if fsx or "fsx" not in task.step.lower() or kind is OperationKind.DELETE_EKS_CLUSTER
    ]


def step_of_state(kind: OperationKind) -> dict[str, str]:
    """Each Task state's step ("Record Stage Completed Eks" runs "Record Stage Completed")."""
    return {task.state: task.step for _, task in WORKFLOWS[kind].tasks()}


@dataclass
class Pipeline:
    """One cluster's plan: its request and where each of its operations fails (a step may fail more than once)."""

    tag: str
    body: dict
    faults: dict[str, Counter[str]]
    failures: dict[str, list[str]] = field(default_factory=lambda: {"create": [], "delete": []})
    seconds: dict[str, float] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)

    @contextmanager
    def phase(self, phase: str) -> Iterator[None]:
        """Time the phase; keep its assertion error (every pipeline goes on to the next phase: a deletion must clean
        up a cluster whose creation never finished too)."""
        began = time.monotonic()
        try:
            yield
        except AssertionError as error:
            self.errors.append(f"{phase}: {error}")
        self.seconds[phase] = time.monotonic() - began

    def problems(self) -> list[str]:
        """Where the pipeline's operations failed other than planned, and what went wrong."""
        unplanned = [
            f"{phase} failed at {sorted(self.failures[phase])}, planned {sorted(self.faults[phase].elements())}"
            for phase in PHASES
            if sorted(self.failures[phase]) != sorted(self.faults[phase].elements())
        ]
        return unplanned + self.errors

    @classmethod
    def draw(cls, index: int, rng: random.Random) -> Pipeline:
        fsx = rng.random() < 1 / 3
        storage: dict = {"fsx": {"storageCapacityGiB": 1200, "deploymentType": "SCRATCH_2"}} if fsx else {}
        group = {"availabilityZone": "us-west-2c", "instanceType": "ml.g6.4xlarge", "instanceCount": rng.randint(1, 2)}

        return cls(
            tag=f"soak-{index:02d}",
            body={"region": REGION, "hyperpod": group, "storage": storage},
            faults={
                phase: Counter(rng.choices(fault_steps(kind, fsx), k=rng.randint(1, 3)))
                for phase, kind in KINDS.items()
            },
        )


def seed() -> int:
    return int(os.environ.get("SOAK_SEED") or random.SystemRandom().randrange(1 << 32))


@pytest.fixture(scope="module")
def soak_sandbox() -> Iterator[RunningSandbox]:
    with serve_sandbox(**SANDBOX_TIMINGS) as running:
        raise_network_quotas(running.sandbox)
        yield replace(running, request_seconds=REQUEST_SECONDS)


@pytest.mark.timeout(3600)
def test_pipelines_with_faults_resume_to_success_and_their_deletion_leaves_the_account_empty(soak_sandbox):
    rng_seed = seed()
    size = int(os.environ.get("SOAK_PIPELINES", "20"))
    print(f"\nsoak: {size} pipelines, SOAK_SEED={rng_seed}")
    rng = random.Random(rng_seed)
    pipelines = [Pipeline.draw(index, rng) for index in range(size)]
    sandbox = soak_sandbox.sandbox
    before = account.snapshot(sandbox, (REGION, HOME_REGION), HOME_REGION)

    seconds = {}
    for phase, run in (("create", create), ("delete", delete)):
        began = time.monotonic()
        for pipeline in pipelines:
            for step, times in pipeline.faults[phase].items():
                sandbox.add_fault(step, times, cluster_tag=pipeline.tag)
        with ThreadPoolExecutor(max_workers=size) as pool:
            list(pool.map(lambda pipeline, run=run: run(soak_sandbox, pipeline), pipelines))
        seconds[phase] = time.monotonic() - began

    after = account.snapshot(sandbox, (REGION, HOME_REGION), HOME_REGION)
    left = leftovers(account.added(before, after), pipelines)
    unfinished = unfinished_operations(soak_sandbox, pipelines)
    report(pipelines, seconds)
    print(f"left in the account: {left or 'nothing'}; operations not finished: {unfinished or 'none'}")
    assert {p.tag: p.problems() for p in pipelines if p.problems()} == {}
    assert sandbox.faults.pending() == {}, "faults planned but never reached"
    assert left == {}
    assert unfinished == []


def create(running: RunningSandbox, pipeline: Pipeline) -> None:
    """Build the cluster, then give it what day two keeps beside it: a remediation policy and a drift report."""
    with pipeline.phase("create"), running.client() as api:
        accepted = api.post("/clusters", json={"clusterTag": pipeline.tag, **pipeline.body})
        assert accepted.status_code == 202, accepted.text
        drive(running, api, accepted.json()["operationId"], "create", pipeline.failures["create"])
        policy = {"action": "reboot", "recordOnly": True}
        put = confirmed(api, "PUT", f"/clusters/{pipeline.tag}/remediation-policy", policy, plan_required=False)
        assert put.status_code == 200, put.text
        drift = api.post(f"/clusters/{pipeline.tag}/drift")
        assert drift.status_code == 200, drift.text


def delete(running: RunningSandbox, pipeline: Pipeline) -> None:
    with pipeline.phase("delete"), running.client() as api:
        accepted = confirmed(api, "DELETE", f"/clusters/{pipeline.tag}")
        assert accepted.status_code == 202, accepted.text
        operation_id = accepted.json()["operationId"]
        drive(running, api, operation_id, "delete", pipeline.failures["delete"])
        assert api.get(f"/clusters/{pipeline.tag}").status_code == 404


def drive(running: RunningSandbox, api: httpx.Client, operation_id: str, phase: str, failed_at: list[str]) -> None:
    """Wait for the operation; while it FAILED, resume it (confirming again if it asks). Notes in `failed_at` where it
    failed: the step, with the error when it was not an injected fault."""
    steps = step_of_state(KINDS[phase])
    for _ in range(MAX_RESUMES):
        operation = running.wait_terminal(operation_id, limit_seconds=OPERATION_LIMIT_SECONDS)
        if operation["status"] == "SUCCEEDED":
            return
        assert operation["status"] == "FAILED", f"{operation_id} is {operation['status']}"
        error = operation["error"]
        step = steps.get(error.get("step"), error.get("step"))
        failed_at.append(step if error["code"] == FAULT else f"{step}: {error['code']}: {error['message']}")
        resumed = confirmed(api, "POST", f"/operations/{operation_id}/resume", plan_required=False)
        assert resumed.status_code == 202, resumed.text
    raise AssertionError(f"{operation_id} still failing after {MAX_RESUMES} resumes")


def unfinished_operations(running: RunningSandbox, pipelines: list[Pipeline]) -> list[str]:
    """Every operation of the soak's clusters that is not in a terminal status, as the API lists them."""
    unfinished = []
    with running.client("sandbox-viewer") as api:
        for pipeline in pipelines:
            listed = api.get("/operations", params={"clusterTag": pipeline.tag, "limit": 100}).json()["operations"]
            unfinished += [
                f"{o['operationId']} {o['kind']} {o['status']}" for o in listed if o["status"] not in TERMINAL_STATUSES
            ]
    return unfinished


def leftovers(added: dict[str, list[str]], pipelines: list[Pipeline]) -> dict[str, list[str]]:
    """What was added, but what deletion keeps by design (the data buckets, the history, what expires by its TTL)."""
    settings = Settings.from_environment(os.environ)
    history = {f"table {getattr(settings, name)}": prefixes for name, prefixes in HISTORY.items()}
    expiring = {f"table {getattr(settings, spec.setting)}" for spec in TABLES if spec.ttl_attribute}
    data_buckets = {data_bucket_name(p.tag, ACCOUNT_ID, REGION) for p in pipelines}
    left = {
        kind: [
            item
            for item in items
            if not (kind == "S3 bucket" and item in data_buckets)
            and not item.partition("/")[2].startswith(history.get(kind, ()))
        ]
        for kind, items in added.items()
        if kind not in expiring
    }
    return {kind: items for kind, items in left.items() if items}


def report(pipelines: list[Pipeline], seconds: dict[str, float]) -> None:
    failures = sum(len(p.failures[phase]) for p in pipelines for phase in PHASES)
    print(
        f"soak: {len(pipelines)} pipelines created in {seconds['create']:.0f} s and deleted in "
        f"{seconds['delete']:.0f} s (wall); {2 * len(pipelines)} operations, {failures} failures, each resumed"
    )
    for p in pipelines:
        print(
            f"  {p.tag} fsx={bool(p.body['storage'])} instances={p.body['hyperpod']['instanceCount']}: "
            + "; ".join(f"{phase} {p.seconds.get(phase, 0):.0f} s, failed at {p.failures[phase]}" for phase in PHASES)
        )
