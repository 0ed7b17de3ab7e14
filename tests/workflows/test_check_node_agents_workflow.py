"""The HyperPod agents and device plugins reach the nodes of a new HyperPod cluster: stage 3 applies them with the
registries of the cluster's Region, and stage 4 waits until each is Ready on the nodes it selects. The sandbox's
kubelet leaves a pod whose AWS registry does not serve its Region in ImagePullBackOff, as a node in AWS does, and
the check fails at once, naming the pod, the image and the reason."""

from __future__ import annotations

from typing import Any

from tests.conftest import RunningSandbox

WEST_GROUP = {"availabilityZone": "us-west-2c", "instanceType": "ml.g6.4xlarge", "instanceCount": 1}
AGENT = ("aws-hyperpod", "health-monitoring-agent")


def agent_pods(running_sandbox: RunningSandbox, tag: str) -> list[dict[str, Any]]:
    store = running_sandbox.sandbox.emulator.store(f"eks-cluster-{tag}")
    return [
        pod
        for pod in store.list("", "v1", "pods", AGENT[0])
        if pod["metadata"]["ownerReferences"][0]["name"] == AGENT[1]
    ]


def test_a_cluster_in_us_east_1_runs_the_health_agent_from_us_east_1_s_registry_on_its_nodes(running_sandbox):
    running_sandbox.build_cluster("east", region="us-east-1", zone="us-east-1a")

    (pod,) = agent_pods(running_sandbox, "east")
    assert pod["status"]["phase"] == "Running"
    assert pod["spec"]["containers"][0]["image"].startswith("767398015722.dkr.ecr.us-east-1.amazonaws.com/")
    with running_sandbox.client("sandbox-viewer") as api:
        operations = api.get("/operations", params={"clusterTag": "east"}).json()["operations"]
    (hyperpod,) = [op for op in operations if op["kind"] == "create_hyperpod_cluster"]
    (stage,) = [stage for stage in hyperpod["stages"] if stage["name"] == "node-agents"]
    assert (stage["status"], stage["message"]) == (
        "SUCCEEDED",
        "hp-cluster-east: agents and device plugins Ready on 1 HyperPod node(s)",
    )


def test_an_agent_image_its_region_cannot_pull_fails_stage_4_at_once_and_resume_passes_once_it_is_fixed(
    running_sandbox,
):
    running_sandbox.build_cluster("pull", hyperpod=False)
    store = running_sandbox.sandbox.emulator.store("eks-cluster-pull")
    agent = store.get("apps", "v1", "daemonsets", *AGENT)
    assert agent is not None
    good = agent["spec"]["template"]["spec"]["containers"][0]["image"]
    # Another Region's registry account, as a manifest with a wrong table entry would name it.
    wrong = good.replace("905418368575.", "767398015722.")
    agent["spec"]["template"]["spec"]["containers"][0]["image"] = wrong
    store.put(agent)

    with running_sandbox.client() as api:
        accepted = api.post("/clusters/pull/hyperpod", json=WEST_GROUP).json()
    failed = running_sandbox.wait_terminal(accepted["operationId"])

    assert failed["status"] == "FAILED"
    assert (failed["error"]["step"], failed["error"]["code"]) == ("Check Node Agents", "DependencyFailedError")
    (pod,) = agent_pods(running_sandbox, "pull")
    assert f"Pod aws-hyperpod/{pod['metadata']['name']} on node {pod['spec']['nodeName']}" in failed["error"]["message"]
    assert f"cannot pull image {wrong}: ImagePullBackOff" in failed["error"]["message"]

    fixed = store.get("apps", "v1", "daemonsets", *AGENT)
    fixed["spec"]["template"]["spec"]["containers"][0]["image"] = good
    store.put(fixed)
    with running_sandbox.client() as api:
        assert api.post(f"/operations/{accepted['operationId']}/resume").status_code == 202
    assert running_sandbox.wait_terminal(accepted["operationId"])["status"] == "SUCCEEDED"
    assert [pod["status"]["phase"] for pod in agent_pods(running_sandbox, "pull")] == ["Running"]
