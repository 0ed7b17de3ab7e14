"""Pre-flight through the API in the sandbox: quotas, addresses and capacity checked before anything exists."""

from __future__ import annotations

import asyncio

import httpx
from mcp import Client

from mcp_server.client import ApiClient
from mcp_server.server import build_server
from mcp_server.tools import tools_from_openapi
from tests.conftest import aws_client

REGION = "us-west-2"
# The seed's cluster: one ml.g6.4xlarge in us-west-2c with S3 storage.
SEED = {
    "region": REGION,
    "hyperpod": {"availabilityZone": "us-west-2c", "instanceType": "ml.g6.4xlarge", "instanceCount": 1},
    "storage": {},
}
NETWORK_CHECKS = {
    "quota: VPCs per Region",
    "quota: Internet gateways per Region",
    "quota: EC2-VPC Elastic IPs",
    "quota: EKS Clusters",
}


def set_quota(running_sandbox, instance_type: str, value: int) -> None:
    response = httpx.put(
        f"{running_sandbox.base_url}/sandbox/quotas",
        json={"region": REGION, "instanceType": instance_type, "value": value},
    )
    assert response.status_code == 200, response.text


def request_of(tag: str, count: int) -> dict:
    return {"clusterTag": tag, **SEED, "hyperpod": {**SEED["hyperpod"], "instanceCount": count}}


def test_a_request_beyond_the_cluster_usage_quota_is_refused_before_anything_exists_and_passes_once_raised(
    running_sandbox,
):
    set_quota(running_sandbox, "ml.g6.4xlarge", 2)
    mark = running_sandbox.sandbox.aws_calls.mark()
    with running_sandbox.client() as api:
        refused = api.post("/clusters", json=request_of("overquota", 3))
        assert refused.status_code == 400, refused.text
        error = refused.json()
        assert error["code"] == "PreflightFailed"
        quota = running_sandbox.sandbox.quotas.quotas(REGION, "sagemaker")
        code = next(q.code for q in quota if q.name == "ml.g6.4xlarge for cluster usage")
        assert "ml.g6.4xlarge for cluster usage" in error["message"] and code in error["message"]
        assert "RequestServiceQuotaIncrease" in error["message"]
        (failed,) = [c for c in error["details"]["checks"] if c["status"] == "fail"]
        assert (failed["quotaCode"], failed["have"], failed["need"], failed["limit"]) == (code, 2, 3, 2)
        assert api.get("/clusters/overquota").status_code == 404
    created = [call for call in running_sandbox.sandbox.aws_calls.since(mark) if ".Create" in call]
    assert created == []
    assert (
        aws_client("ec2", region_name=REGION).describe_vpcs(
            Filters=[{"Name": "tag:instantstart:cluster", "Values": ["overquota"]}]
        )["Vpcs"]
        == []
    )

    set_quota(running_sandbox, "ml.g6.4xlarge", 4)
    with running_sandbox.client() as api:
        accepted = api.post("/clusters", json=request_of("overquota", 3))
    assert accepted.status_code == 202, accepted.text


def test_a_dry_run_of_the_seed_request_lists_every_check_with_its_numbers(running_sandbox):
    with running_sandbox.client() as api:
        plan = api.post("/clusters", params={"dryRun": "true"}, json={"clusterTag": "seeddry", **SEED})
    assert plan.status_code == 200, plan.text
    checks = {check["check"]: check for check in plan.json()["checks"]}
    assert set(checks) >= NETWORK_CHECKS
    assert any(name.startswith("quota: NAT gateways per Availability Zone") for name in checks)
    assert "quota: ml.g6.4xlarge for cluster usage" in checks
    assert any(name.startswith("addresses: new compute subnet") for name in checks)
    for check in checks.values():
        assert check["status"] in ("pass", "warn"), check
        assert isinstance(check["have"], int) and isinstance(check["need"], int), check
    for name, check in checks.items():
        if name.startswith("quota: "):
            assert check["quotaCode"].startswith("L-") and check["limit"] >= check["used"] >= 0, check


def test_a_plan_reads_each_quota_once_and_each_cluster_once_never_per_instance(running_sandbox):
    set_quota(running_sandbox, "ml.g6.4xlarge", 10)
    with running_sandbox.client() as api:
        api.post("/clusters", params={"dryRun": "true"}, json=request_of("onceread", 1))  # quota codes are known
        mark = running_sandbox.sandbox.aws_calls.mark()
        plan = api.post("/clusters", params={"dryRun": "true"}, json=request_of("onceread", 8))
    assert plan.status_code == 200, plan.text
    calls = running_sandbox.sandbox.aws_calls.since(mark)
    clusters = aws_client("sagemaker", region_name=REGION).list_clusters()["ClusterSummaries"]
    assert calls.count("service-quotas.GetServiceQuota") == len([c for c in plan.json()["checks"] if "quotaCode" in c])
    assert calls.count("service-quotas.ListServiceQuotas") == 0
    assert calls.count("sagemaker.DescribeCluster") == len(clusters)


def test_the_quotas_route_lists_the_cluster_usage_quota_with_live_usage(running_sandbox):
    with running_sandbox.client("sandbox-viewer") as api:
        response = api.get(f"/regions/{REGION}/quotas", params={"instanceType": "ml.g6.4xlarge"})
        refused = api.get(f"/regions/{REGION}/quotas", params={"instanceType": "g6"})
    assert response.status_code == 200, response.text
    quotas = {quota["name"]: quota for quota in response.json()["quotas"]}
    usage = quotas["ml.g6.4xlarge for cluster usage"]
    assert usage["serviceCode"] == "sagemaker" and usage["available"] == usage["value"] - usage["used"]
    assert {"VPCs per Region", "EC2-VPC Elastic IPs", "Clusters"} <= set(quotas)
    assert refused.status_code == 400


def test_the_quotas_route_refuses_an_unknown_region_with_400(running_sandbox):
    with running_sandbox.client("sandbox-viewer") as api:
        response = api.get("/regions/aa-a-0/quotas")
    assert response.status_code == 400 and response.json()["code"] == "UnknownRegion", response.text


def test_stage_one_is_refused_when_the_region_has_no_vpc_left_and_its_dry_run_says_so(running_sandbox):
    used = len(aws_client("ec2", region_name="eu-west-1").describe_vpcs()["Vpcs"])
    response = httpx.put(
        f"{running_sandbox.base_url}/sandbox/quotas",
        json={"region": "eu-west-1", "serviceCode": "vpc", "quotaName": "VPCs per Region", "value": used},
    )
    assert response.status_code == 200, response.text
    body = {"clusterTag": "novpc", "region": "eu-west-1"}
    with running_sandbox.client() as api:
        plan = api.post("/clusters/eks", params={"dryRun": "true"}, json=body)
        refused = api.post("/clusters/eks", json=body)
        assert api.get("/clusters/novpc").status_code == 404
    vpcs = next(c for c in plan.json()["checks"] if c["check"] == "quota: VPCs per Region")
    assert (vpcs["status"], vpcs["have"], vpcs["need"], vpcs["quotaCode"]) == ("fail", 0, 1, "L-F678F1CE")
    assert refused.status_code == 400 and "L-F678F1CE" in refused.json()["message"], refused.text


def test_through_the_tools_a_dry_run_whose_checks_fail_says_it_would_be_refused_first(running_sandbox):
    """Issue 30, finding 2: a plan whose pre-flight said fail answered "Plan only… to carry it out, call again"."""

    async def conversation() -> tuple[str, dict]:
        api = ApiClient(f"{running_sandbox.base_url}/api", "sandbox-admin")
        async with Client(build_server(tools_from_openapi((await api.openapi_document()).document), api)) as client:
            result = await client.call_tool("cluster_create", {**request_of("toobig", 500), "dryRun": True})
            assert not result.is_error, result.content
            return result.content[0].text.split("\n", 1)[0], dict(result.structured_content)

    said, plan = asyncio.run(conversation())

    assert [check["status"] for check in plan["checks"]].count("fail") >= 1, plan
    assert said.startswith("Plan only; nothing changed, and carried out it would be refused: check quota: "), said
    assert "carry it out" not in said and "dryRun false" not in said
