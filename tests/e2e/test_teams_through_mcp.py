"""Task governance in the sandbox, as an agent runs it through the MCP tools: with the taskGovernance feature enabled
on a cluster of two ml.g6.4xlarge, a team gets a quota of one, a second team asking for three is refused with what
is left, and changing or deleting a team, or changing the scheduler policy, is planned before it is confirmed; a new
team's namespace is prepared by an operation the agent waits for, and can be prepared again; a job over its team's
quota is queued by Kueue, and the teams view says why until the quota frees."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from botocore.exceptions import ClientError
from mcp import Client

from controlplane.adapters.aws import stepfunctions
from controlplane.core.training.manifest import JobPlacement, render
from controlplane.models.training import SubmitJobRequest
from mcp_server.client import ApiClient
from mcp_server.server import build_server
from mcp_server.tools import tools_from_openapi
from sandbox.k8s.training import GROUP, PLURAL, VERSION
from tests.mcp_conversation import converse, waited
from tests.workflows.confirm import confirmed

TAG = "mcpteams"
INSTANCE_TYPE = "ml.g6.4xlarge"
EKS = f"eks-cluster-{TAG}"


@pytest.fixture(scope="module")
def cluster(running_sandbox) -> str:
    running_sandbox.build_cluster(TAG, instances=2, storage=True, features={"taskGovernance": {"enabled": True}})
    return TAG


def quota(team: str, count: int) -> dict[str, Any]:
    return {"clusterTag": TAG, "team": team, "allocations": [{"instanceType": INSTANCE_TYPE, "count": count}]}


def test_an_agent_gives_a_team_a_quota_within_capacity_changes_it_and_deletes_it_after_confirmation(
    running_sandbox, cluster
):
    async def story(tool):
        _, created = await tool("hyperpod_create_team", quota("ml-a", 1))
        assert created["localQueue"] == "hyperpod-ns-ml-a-localqueue"
        await waited(tool, created["namespaceOperationId"])  # one operation per cluster: the removal waits for it
        _, teams = await tool("hyperpod_list_teams", {"clusterTag": TAG})
        assert (teams["capacity"], teams["allocated"]) == ({INSTANCE_TYPE: 2}, {INSTANCE_TYPE: 1})
        change = {"clusterTag": TAG, "team": "ml-a", "allocations": [{"instanceType": INSTANCE_TYPE, "count": 2}]}
        _, plan = await tool("hyperpod_update_team", change)
        _, updated = await tool("hyperpod_update_team", {**change, "confirmationToken": plan["confirmationToken"]})
        assert updated["allocations"] == [{"instanceType": INSTANCE_TYPE, "count": 2}]
        _, teams = await tool("hyperpod_list_teams", {"clusterTag": TAG})
        assert (teams["allocated"], teams["teams"][0]["status"]) == ({INSTANCE_TYPE: 2}, "Updated")
        _, plan = await tool("hyperpod_delete_team", {"clusterTag": TAG, "team": "ml-a"})
        assert plan["confirmationToken"]
        _, deleted = await tool(
            "hyperpod_delete_team",
            {"clusterTag": TAG, "team": "ml-a", "confirmationToken": plan["confirmationToken"]},
        )
        removal = await waited(tool, deleted["namespaceOperationId"])
        _, teams = await tool("hyperpod_list_teams", {"clusterTag": TAG})
        return teams["teams"], removal

    (remaining, removal), calls, _ = converse(running_sandbox, story, token="sandbox-admin")
    assert remaining == []
    assert (removal["kind"], removal["status"]) == ("remove_team_namespace", "SUCCEEDED"), removal.get("error")
    assert calls.count("hyperpod_delete_team") == 2


def test_a_quota_over_the_clusters_capacity_is_a_tool_error_saying_what_is_left(running_sandbox, cluster):
    async def conversation() -> str:
        api = ApiClient(f"{running_sandbox.base_url}/api", "sandbox-admin")
        async with Client(build_server(tools_from_openapi((await api.openapi_document()).document), api)) as client:
            result = await client.call_tool("hyperpod_create_team", quota("ml-big", 3))
            assert result.is_error
            return result.content[0].text

    message = asyncio.run(conversation())
    assert "at most 2" in message and "Lower the count" in message, message


def test_an_agent_sets_the_scheduler_policy_then_changes_it_only_with_the_plans_token(running_sandbox, cluster):
    first = {"clusterTag": TAG, "priorityClasses": [{"name": "training", "weight": 50}]}
    changed = {**first, "priorityClasses": [{"name": "training", "weight": 50}, {"name": "inference", "weight": 90}]}

    async def story(tool):
        _, created = await tool("hyperpod_put_scheduler_policy", first)
        assert created["priorityClasses"] == [{"name": "training", "weight": 50}]
        _, plan = await tool("hyperpod_put_scheduler_policy", {**changed, "dryRun": True})
        _, updated = await tool(
            "hyperpod_put_scheduler_policy", {**changed, "confirmationToken": plan["confirmationToken"]}
        )
        assert updated["version"] == 2
        _, teams = await tool("hyperpod_list_teams", {"clusterTag": TAG})
        _, plan = await tool("hyperpod_delete_scheduler_policy", {"clusterTag": TAG})
        await tool(
            "hyperpod_delete_scheduler_policy", {"clusterTag": TAG, "confirmationToken": plan["confirmationToken"]}
        )
        return teams["schedulerPolicy"]

    policy, _, _ = converse(running_sandbox, story, token="sandbox-admin")
    assert [p["name"] for p in policy["priorityClasses"]] == ["training", "inference"]
    assert (policy["status"], policy["fairShare"]) == ("Updated", True)


def settle(running_sandbox) -> None:
    """Let the operations earlier tests started (their teams' namespaces) end: one operation runs per cluster."""
    with running_sandbox.client("sandbox-viewer") as api:
        operations = api.get("/operations", params={"clusterTag": TAG}).json()["operations"]
    for operation in operations:
        running_sandbox.wait_terminal(operation["operationId"])


def test_an_agent_waits_for_a_new_teams_namespace_to_be_ready_and_prepares_it_again(running_sandbox, cluster):
    settle(running_sandbox)

    async def story(tool):
        _, created = await tool("hyperpod_create_team", quota("ml-ns", 1))
        assert created["namespaceReady"] is False
        operation = await waited(tool, created["namespaceOperationId"])
        _, teams = await tool("hyperpod_list_teams", {"clusterTag": TAG})
        _, again = await tool("hyperpod_prepare_team_namespace", {"clusterTag": TAG, "team": "ml-ns"})
        return operation, teams, await waited(tool, again["operationId"])

    (operation, teams, again), _, _ = converse(running_sandbox, story, token="sandbox-admin")
    assert (operation["kind"], operation["status"]) == ("prepare_team_namespace", "SUCCEEDED"), operation.get("error")
    team = next(view for view in teams["teams"] if view["team"] == "ml-ns")
    assert (team["namespace"], team["namespaceReady"], team["namespaceMissing"]) == ("hyperpod-ns-ml-ns", True, [])
    assert (again["kind"], again["status"]) == ("prepare_team_namespace", "SUCCEEDED"), again.get("error")
    with running_sandbox.client() as api:  # its instance goes back for the tests after this one
        deleted = confirmed(api, "DELETE", f"/clusters/{TAG}/teams/ml-ns")
    assert running_sandbox.wait_terminal(deleted.json()["namespaceOperationId"])["status"] == "SUCCEEDED"


def test_a_team_created_while_the_cluster_is_busy_or_step_functions_is_full_is_refused_with_nothing_created(
    running_sandbox, cluster, monkeypatch
):
    """While another operation holds the cluster: 409 naming it. While Step Functions refuses executions
    (ExecutionLimitExceeded): 503 with Retry-After, and repeating it with the same Idempotency-Key creates the team. In
    neither case does the team exist after the refusal."""
    settle(running_sandbox)

    def body(team: str) -> dict[str, Any]:
        return {key: value for key, value in quota(team, 1).items() if key != "clusterTag"}

    with running_sandbox.client() as api:
        first = api.post(f"/clusters/{TAG}/teams", json=body("ml-busy")).json()
        assert "namespaceOperationId" in first, first
        busy = api.post(f"/clusters/{TAG}/teams", json=body("ml-later"))
        running_sandbox.wait_terminal(first["namespaceOperationId"])
        deleted = confirmed(api, "DELETE", f"/clusters/{TAG}/teams/ml-busy").json()
        running_sandbox.wait_terminal(deleted["namespaceOperationId"])

        real = stepfunctions.client

        def full(service: str) -> Any:
            found = real(service)
            if service != "stepfunctions":
                return found

            class Full:
                def __getattr__(self, name: str) -> Any:
                    return getattr(found, name)

                def start_execution(self, **_: Any) -> Any:
                    error = {"Code": "ExecutionLimitExceeded", "Message": "Execution Limit Exceeded"}
                    raise ClientError({"Error": error}, "StartExecution")

            return Full()

        monkeypatch.setattr(stepfunctions, "client", full)
        key = {"Idempotency-Key": "ml-full-1"}
        refused = api.post(f"/clusters/{TAG}/teams", json=body("ml-full"), headers=key)
        monkeypatch.undo()
        teams = [team["team"] for team in api.get(f"/clusters/{TAG}/teams").json()["teams"]]
        retried = api.post(f"/clusters/{TAG}/teams", json=body("ml-full"), headers=key)
        assert retried.status_code == 201, retried.text
        running_sandbox.wait_terminal(retried.json()["namespaceOperationId"])
        deleted = confirmed(api, "DELETE", f"/clusters/{TAG}/teams/ml-full").json()
        running_sandbox.wait_terminal(deleted["namespaceOperationId"])
    assert busy.status_code == 409, busy.text
    assert busy.json()["code"] == "ClusterBusy"
    assert first["namespaceOperationId"] in busy.json()["message"]
    assert refused.status_code == 503, refused.text
    assert (refused.json()["code"], refused.headers["Retry-After"]) == ("WorkflowStartRefused", "30")
    assert "Team 'ml-full' was not created" in refused.json()["message"]
    assert "ExecutionLimitExceeded" in refused.json()["message"]
    assert not {"ml-later", "ml-full"} & set(teams)


def create_team_job(running_sandbox, name: str, team: str, namespace: str | None = None) -> None:
    """A one-GPU HyperPodPyTorchJob with Kueue's labels, created through the cluster's API (as `hyp` would), in the
    team's namespace (or `namespace`, queued to a LocalQueue of that name)."""
    body = {"name": name, "image": "img", "nodes": 1, "gpusPerNode": 1, "instanceType": INSTANCE_TYPE}
    namespace = namespace or f"hyperpod-ns-{team}"
    job = render(SubmitJobRequest.model_validate(body), JobPlacement(namespace, "s3-claim", None, 0))
    job["metadata"]["namespace"] = namespace
    job["metadata"].setdefault("labels", {})["kueue.x-k8s.io/queue-name"] = f"hyperpod-ns-{team}-localqueue"
    emulator = running_sandbox.sandbox.emulator
    kind = emulator.transact(EKS, lambda store, _: store.served(GROUP, VERSION, PLURAL))
    emulator.transact(EKS, lambda store, events: store.create(kind, namespace, job, events))


def test_a_job_over_its_teams_quota_is_queued_with_kueues_reason_until_the_first_is_deleted(running_sandbox, cluster):
    settle(running_sandbox)
    running_sandbox.sandbox.training.seconds_per_line = 5  # the first job runs for the whole test
    store = running_sandbox.sandbox.emulator.store(EKS)

    async def queued(tool) -> tuple[dict, dict]:
        await tool("hyperpod_create_team", quota("ml-q", 1))
        create_team_job(running_sandbox, "first", "ml-q")
        create_team_job(running_sandbox, "second", "ml-q")
        for _ in range(200):
            _, teams = await tool("hyperpod_list_teams", {"clusterTag": TAG})
            [team] = [found for found in teams["teams"] if found["team"] == "ml-q"]
            if team["queued"] and team["queued"][0]["message"]:
                break
            await asyncio.sleep(0.05)
        store.delete(GROUP, VERSION, PLURAL, "hyperpod-ns-ml-q", "first")
        for _ in range(200):
            _, teams = await tool("hyperpod_list_teams", {"clusterTag": TAG})
            [after] = [found for found in teams["teams"] if found["team"] == "ml-q"]
            if not after["queued"] and after["admittedWorkloads"] == 1:
                break
            await asyncio.sleep(0.05)
        return team, after

    try:
        (team, after), _, _ = converse(running_sandbox, queued, token="sandbox-admin")
    finally:
        running_sandbox.sandbox.training.seconds_per_line = 0.02
    assert [(q["name"], q["reason"]) for q in team["queued"]] == [("second", "Pending")]
    assert team["queued"][0]["message"] == (
        "couldn't assign flavors to pod set pods: insufficient unused quota for nvidia.com/gpu in flavor "
        f"{INSTANCE_TYPE}, 1 more needed"
    )
    assert [(u["resource"], u["inUse"]) for u in team["inUse"] if u["resource"] == "nvidia.com/gpu"] == [
        ("nvidia.com/gpu", "1")
    ]
    assert (after["queued"], after["admittedWorkloads"]) == ([], 1)
    second = store.get(GROUP, VERSION, PLURAL, "hyperpod-ns-ml-q", "second")
    assert second["spec"]["runPolicy"]["suspend"] is False


def test_a_job_kueue_holds_reads_as_queued_with_its_reason_through_the_job_tools(running_sandbox, cluster):
    """A person queued a job from the storage claim's namespace through a LocalQueue of their own that points at team
    ml-r's ClusterQueue, which selects only the team's namespace: Kueue holds it, and the job tools say why."""
    settle(running_sandbox)
    store = running_sandbox.sandbox.emulator.store(EKS)

    async def story(tool):
        await tool("hyperpod_create_team", quota("ml-r", 1))
        local = {
            "apiVersion": "kueue.x-k8s.io/v1beta1",
            "kind": "LocalQueue",
            "metadata": {"name": "hyperpod-ns-ml-r-localqueue", "namespace": "default"},
            "spec": {"clusterQueue": "hyperpod-ns-ml-r-clusterqueue"},
        }
        store.put(local)
        create_team_job(running_sandbox, "outsider", "ml-r", namespace="default")
        for _ in range(200):
            lead, status = await tool("job_get_status", {"clusterTag": TAG, "jobName": "outsider"})
            if status.get("waitingReason", "").startswith("Inadmissible"):
                break
            await asyncio.sleep(0.05)
        _, listed = await tool("job_list_all", {"clusterTag": TAG})
        return lead, status, listed

    (lead, status, listed), _, _ = converse(running_sandbox, story, token="sandbox-admin")
    reason = "Inadmissible: Workload namespace doesn't match ClusterQueue selector"
    assert (status["phase"], status["waitingReason"]) == ("Queued", reason)
    assert lead == f"job_get_status: outsider is Queued: {reason}"
    [row] = [job for job in listed["jobs"] if job["name"] == "outsider"]
    assert (row["phase"], row["waitingReason"]) == ("Queued", reason)
