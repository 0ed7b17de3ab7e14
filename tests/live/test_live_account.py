"""The deployer's path in a real account, end to end: a deployed control plane (or one this suite deploys) creates the
smallest cluster through the REST API (`POST /clusters`: network, EKS, dependencies, one HyperPod instance, S3
storage), enables the training operator, runs one job to Succeeded, deletes the job and the cluster, and reports what
the account still holds (by ownership tag and by the control plane's deterministic names).

Skipped unless pointed at an account (`tests/live/conftest.py` says how). The same routes and request models as the
e2e suite; every call signed with SigV4 as the caller's IAM role, which `iamRoleBindings` must bind to admin.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import boto3
import httpx
import pytest

from controlplane.core.naming import DEFAULT_DEPLOYMENT_NAME, Deployment
from controlplane.models.operations import TERMINAL_STATUSES
from mcp_server.sigv4 import SigV4
from tests.live import leftovers
from tests.live.leftovers import Cluster

ROOT = Path(__file__).resolve().parents[2]
STACK = "InstantStartStack"
# The smallest cluster with a GPU: one ml.g5.xlarge (1 A10G), no deep health checks (they add an hour).
INSTANCE_TYPE = os.environ.get("IS_LIVE_INSTANCE_TYPE", "ml.g5.xlarge")
JOB_IMAGE = os.environ.get("IS_LIVE_JOB_IMAGE", "pytorch/pytorch:2.5.1-cuda12.4-cudnn9-runtime")
JOB_COMMAND = json.loads(
    os.environ.get("IS_LIVE_JOB_COMMAND", '["python", "-c", "import torch; print(torch.cuda.is_available())"]')
)
TIMEOUT = float(os.environ.get("IS_LIVE_TIMEOUT_MINUTES", "150")) * 60


@pytest.fixture(scope="module")
def api_url() -> Iterator[str]:
    """The stack's IamApiUrl: given, or from a `cdk deploy` this suite runs (and `cdk destroy`s after)."""
    given = os.environ.get("IS_LIVE_API_URL")
    if given:
        yield given
        return
    with tempfile.TemporaryDirectory() as scratch:
        outputs = Path(scratch) / "outputs.json"
        bindings = json.dumps({caller_role_arn(): "admin"})
        cdk(["deploy", STACK, "--require-approval", "never", "--outputs-file", str(outputs)], bindings)
        try:
            yield json.loads(outputs.read_text())[STACK]["IamApiUrl"]
        finally:
            # The tables are retained (deletion protection) and the data buckets kept: docs/deploy.md says so.
            cdk(["destroy", STACK, "--force"], bindings)


def cdk(arguments: list[str], bindings: str) -> None:
    subprocess.run(["npx", "aws-cdk@2", *arguments, "-c", f"iamRoleBindings={bindings}"], cwd=ROOT, check=True)


def caller_role_arn() -> str:
    """The caller's IAM role, from its session ARN (`…:assumed-role/<name>/<session>`): what the API binds."""
    arn = boto3.client("sts").get_caller_identity()["Arn"]
    match = re.fullmatch(r"arn:(aws[a-z-]*):sts::(\d{12}):assumed-role/([^/]+)/.+", arn)
    if match is None:
        raise RuntimeError(f"Run the live suite as an IAM role (iamRoleBindings binds roles), not {arn}.")
    partition, account, name = match.groups()
    return f"arn:{partition}:iam::{account}:role/{name}"


def api_region(url: str) -> str:
    """The deployment's (home) Region, from `https://<id>.execute-api.<region>.amazonaws.com/…`."""
    host = httpx.URL(url).host
    return host.split(".")[2]


@pytest.fixture(scope="module")
def api(api_url: str) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=api_url.rstrip("/"), auth=SigV4(api_region(api_url)), timeout=60) as client:
        yield client


def ok(response: httpx.Response, *statuses: int) -> Any:
    assert response.status_code in (statuses or (200,)), f"{response.request.method} {response.url}: {response.text}"
    return response.json()


def wait(api: httpx.Client, accepted: dict[str, Any], deadline: float) -> dict[str, Any]:
    """The operation once it has ended (each call long-polls up to 20 s, API Gateway's window)."""
    operation = accepted
    while operation["status"] not in TERMINAL_STATUSES and time.monotonic() < deadline:
        operation = ok(api.get(f"/operations/{accepted['operationId']}/wait", params={"timeoutSeconds": 20}))
    return operation


def confirmed(api: httpx.Client, method: str, path: str) -> httpx.Response:
    """A destructive request as a person who agreed to its plan: the plan's token, then the request with it."""
    plan = ok(api.request(method, path))
    return api.request(method, path, params={"confirmationToken": plan["confirmationToken"]})


def availability_zone(api: httpx.Client, region: str) -> str:
    """IS_LIVE_AVAILABILITY_ZONE, else the first zone of the Region that offers the instance type."""
    if os.environ.get("IS_LIVE_AVAILABILITY_ZONE"):
        return os.environ["IS_LIVE_AVAILABILITY_ZONE"]
    for zone in ok(api.get(f"/regions/{region}/availability-zones"))["availabilityZones"]:
        offered = ok(api.get(f"/regions/{region}/instance-types", params={"availabilityZone": zone["name"]}))
        if any(t["instanceType"] == INSTANCE_TYPE for t in offered["instanceTypes"]):
            return str(zone["name"])
    raise AssertionError(f"No zone of {region} offers {INSTANCE_TYPE}; set IS_LIVE_INSTANCE_TYPE or IS_LIVE_REGION.")


@pytest.mark.timeout(0)  # hours, not pyproject's 120 s: the deadline below bounds it
def test_a_deployed_control_plane_builds_the_smallest_cluster_runs_a_job_and_leaves_nothing_behind(
    api: httpx.Client, api_url: str
) -> None:
    deadline = time.monotonic() + TIMEOUT
    home = api_region(api_url)
    region = os.environ.get("IS_LIVE_REGION", home)
    account = boto3.client("sts").get_caller_identity()["Account"]
    deployment = Deployment(DEFAULT_DEPLOYMENT_NAME, home, boto3.session.Session().get_partition_for_region(home))
    cluster = Cluster(f"live{secrets.token_hex(3)}", region, account, deployment)
    report: dict[str, list[str]] = {}
    try:
        body = {
            "clusterTag": cluster.tag,
            "region": region,
            "hyperpod": {
                "availabilityZone": availability_zone(api, region),
                "instanceType": INSTANCE_TYPE,
                "instanceCount": 1,
                "deepHealthChecks": False,
            },
            "storage": {},
        }
        created = wait(api, ok(api.post("/clusters", json=body), 202), deadline)
        assert created["status"] == "SUCCEEDED", created
        status = ok(api.get(f"/clusters/{cluster.tag}/status"))
        print(f"{cluster.tag}: {status}")

        features = ok(api.patch(f"/clusters/{cluster.tag}/features", json={"trainingOperator": {"enabled": True}}), 202)
        assert wait(api, features, deadline)["status"] == "SUCCEEDED"

        job = {
            "name": "hello",
            "image": JOB_IMAGE,
            "command": JOB_COMMAND,
            "nodes": 1,
            "instanceType": INSTANCE_TYPE,
            "runPolicy": {"cleanPodPolicy": "None"},  # its pod (and log) stays until the job is deleted
        }
        ok(api.post(f"/clusters/{cluster.tag}/jobs", json=job), 201)
        detail = ok(api.get(f"/clusters/{cluster.tag}/jobs/hello"))
        while detail["phase"] not in ("Succeeded", "Failed") and time.monotonic() < deadline:
            time.sleep(15)
            detail = ok(api.get(f"/clusters/{cluster.tag}/jobs/hello"))
        print(ok(api.get(f"/clusters/{cluster.tag}/jobs/hello/logs", params={"tailLines": 20}))["lines"])
        assert detail["phase"] == "Succeeded", detail
        ok(confirmed(api, "DELETE", f"/clusters/{cluster.tag}/jobs/hello"))
    finally:
        report = teardown(api, cluster, deadline)
    assert report["left"] == [], report


def teardown(api: httpx.Client, cluster: Cluster, deadline: float) -> dict[str, list[str]]:
    """Delete the cluster (if it was registered), then list what remains. The data bucket is kept by design: it held
    only this suite's data, so it is removed first and reported apart."""
    if api.get(f"/clusters/{cluster.tag}").status_code == 200:
        deleting = ok(confirmed(api, "DELETE", f"/clusters/{cluster.tag}"), 202)
        print(f"delete {cluster.tag}: {wait(api, deleting, deadline + 3600)['status']}")
    kept = leftovers.data_bucket(cluster)
    if kept:
        leftovers.remove_data_bucket(cluster, kept)
    listed = ok(api.get("/clusters"))["clusters"]
    others = [c for c in listed if c["region"] == cluster.region and c["clusterTag"] != cluster.tag]
    left: list[str] = []
    for _ in range(10):  # the tagging API lags deletions by a few minutes
        left = leftovers.tagged(cluster) + leftovers.named(cluster, region_has_other_clusters=bool(others))
        if not left:
            break
        time.sleep(30)
    report = {"left": left, "kept by design (removed by the suite)": [kept] if kept else []}
    print(f"leftovers of {cluster.tag} in {cluster.region}: {json.dumps(report, indent=2)}")
    return report
