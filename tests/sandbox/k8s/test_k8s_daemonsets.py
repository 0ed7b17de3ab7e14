"""The sandbox's DaemonSet controller on the emulator alone: a pod per selected node that tolerates its taints,
templates rolled, pods gone with their node or DaemonSet; and the kubelet's pull, which leaves a pod whose image's
AWS registry does not serve its Region in ImagePullBackOff, as a node in that Region meets it."""

from __future__ import annotations

from typing import Any

import pytest

from sandbox.aws.ecr import pull_error
from sandbox.k8s.daemonsets import DaemonSetController
from sandbox.k8s.emulator import ClusterStore, KubernetesEmulator

CLUSTER = "eks-cluster-ds"
AGENT = "hyperpod-health-monitoring-agent:1.0.1892.0_1.0.424.0"
EFA = "eks/aws-efa-k8s-device-plugin:v0.5.13"


def node(name: str, instance_type: str, region: str = "us-east-1", taints: list[Any] | None = None) -> dict[str, Any]:
    labels = {"node.kubernetes.io/instance-type": instance_type, "topology.kubernetes.io/region": region}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": labels},
        "spec": {"taints": taints or []},
    }


def daemon_set(image: str, instance_types: list[str], **spec: Any) -> dict[str, Any]:
    affinity = {
        "nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {
                "nodeSelectorTerms": [
                    {
                        "matchExpressions": [
                            {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": instance_types}
                        ]
                    }
                ]
            }
        }
    }
    return {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": "agent", "namespace": "aws-hyperpod"},
        "spec": {
            "selector": {"matchLabels": {"app": "agent"}},
            "template": {
                "metadata": {"labels": {"app": "agent"}},
                "spec": {"affinity": affinity, "containers": [{"name": "agent", "image": image}], **spec},
            },
        },
    }


@pytest.fixture
def store() -> ClusterStore:
    emulator = KubernetesEmulator()
    DaemonSetController(emulator).install()
    store = emulator.store(CLUSTER)
    store.put({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "aws-hyperpod"}})
    return store


def pods(store: ClusterStore) -> dict[str, dict[str, Any]]:
    return {pod["spec"]["nodeName"]: pod for pod in store.list("", "v1", "pods", "aws-hyperpod")}


def waiting(pod: dict[str, Any]) -> dict[str, Any]:
    (container,) = pod["status"]["containerStatuses"]
    return dict(container["state"].get("waiting") or {})


def test_a_daemon_set_runs_one_ready_pod_on_each_node_it_selects_and_counts_them(store: ClusterStore) -> None:
    image = f"767398015722.dkr.ecr.us-east-1.amazonaws.com/{AGENT}"
    store.put(node("gpu-1", "ml.g6.4xlarge"))
    store.put(node("gpu-2", "ml.g6.4xlarge"))
    store.put(node("cpu-1", "ml.c5.2xlarge"))

    store.put(daemon_set(image, ["ml.g6.4xlarge"]))

    placed = pods(store)
    assert sorted(placed) == ["gpu-1", "gpu-2"]
    assert {pod["status"]["phase"] for pod in placed.values()} == {"Running"}
    assert all(pod["status"]["containerStatuses"][0]["ready"] for pod in placed.values())
    status = store.get("apps", "v1", "daemonsets", "aws-hyperpod", "agent")["status"]
    assert (status["desiredNumberScheduled"], status["numberReady"], status["numberUnavailable"]) == (2, 2, 0)


def test_a_node_that_joins_later_gets_its_pod_and_a_node_that_leaves_takes_it(store: ClusterStore) -> None:
    store.put(daemon_set(f"767398015722.dkr.ecr.us-east-1.amazonaws.com/{AGENT}", ["ml.g6.4xlarge"]))
    assert pods(store) == {}

    store.put(node("gpu-1", "ml.g6.4xlarge"))
    assert list(pods(store)) == ["gpu-1"]

    store.delete("", "v1", "nodes", None, "gpu-1")
    assert pods(store) == {}
    assert store.get("apps", "v1", "daemonsets", "aws-hyperpod", "agent")["status"]["desiredNumberScheduled"] == 0


def test_the_health_agent_image_of_another_region_s_account_stays_in_image_pull_back_off(store: ClusterStore) -> None:
    """905418368575 is the agent's us-west-2 registry: it holds no repository in us-east-1."""
    image = f"905418368575.dkr.ecr.us-east-1.amazonaws.com/{AGENT}"
    store.put(node("gpu-1", "ml.g6.4xlarge"))

    store.put(daemon_set(image, ["ml.g6.4xlarge"]))

    pod = pods(store)["gpu-1"]
    assert pod["status"]["phase"] == "Pending"
    assert waiting(pod) == {"reason": "ImagePullBackOff", "message": f'Back-off pulling image "{image}"'}
    ready = {c["type"]: c["status"] for c in pod["status"]["conditions"]}["Ready"]
    assert ready == "False"
    (event,) = [e for e in store.list("", "v1", "events", "aws-hyperpod") if e["involvedObject"]["kind"] == "Pod"]
    assert (event["type"], event["reason"]) == ("Warning", "Failed")
    assert f"{image}" in event["message"] and "not found" in event["message"]
    status = store.get("apps", "v1", "daemonsets", "aws-hyperpod", "agent")["status"]
    assert (status["desiredNumberScheduled"], status["numberReady"]) == (1, 0)


def test_a_fixed_template_replaces_the_failing_pod_with_a_running_one(store: ClusterStore) -> None:
    store.put(node("gpu-1", "ml.g6.4xlarge"))
    store.put(daemon_set(f"905418368575.dkr.ecr.us-east-1.amazonaws.com/{AGENT}", ["ml.g6.4xlarge"]))
    assert pods(store)["gpu-1"]["status"]["phase"] == "Pending"

    store.put(daemon_set(f"767398015722.dkr.ecr.us-east-1.amazonaws.com/{AGENT}", ["ml.g6.4xlarge"]))

    pod = pods(store)["gpu-1"]
    assert pod["status"]["phase"] == "Running"
    assert pod["spec"]["containers"][0]["image"].startswith("767398015722.")


def test_untolerated_taints_keep_new_pods_off_a_node_and_only_no_execute_ones_evict(store: ClusterStore) -> None:
    tainted = node("gpu-1", "ml.g6.4xlarge", taints=[{"key": "team", "value": "a", "effect": "NoSchedule"}])
    store.put(tainted)
    store.put(node("gpu-2", "ml.g6.4xlarge"))
    tolerations = [{"key": "sagemaker.amazonaws.com/node-health-status", "operator": "Exists", "effect": "NoSchedule"}]
    store.put(
        daemon_set(f"767398015722.dkr.ecr.us-east-1.amazonaws.com/{AGENT}", ["ml.g6.4xlarge"], tolerations=tolerations)
    )
    assert list(pods(store)) == ["gpu-2"]

    health = {"key": "sagemaker.amazonaws.com/node-health-status", "value": "Unschedulable", "effect": "NoSchedule"}
    store.put(node("gpu-2", "ml.g6.4xlarge", taints=[health, {"key": "team", "effect": "NoSchedule"}]))
    assert list(pods(store)) == ["gpu-2"]  # NoSchedule does not evict a running DaemonSet pod

    store.put(node("gpu-2", "ml.g6.4xlarge", taints=[{"key": "team", "effect": "NoExecute"}]))
    assert pods(store) == {}


def test_deleting_the_daemon_set_deletes_its_pods(store: ClusterStore) -> None:
    store.put(node("gpu-1", "ml.g6.4xlarge"))
    store.put(daemon_set(f"767398015722.dkr.ecr.us-east-1.amazonaws.com/{AGENT}", ["ml.g6.4xlarge"]))

    store.delete("apps", "v1", "daemonsets", "aws-hyperpod", "agent")

    assert pods(store) == {}


@pytest.mark.parametrize(
    "image",
    [
        f"602401143452.dkr.ecr.us-west-2.amazonaws.com/{EFA}",
        f"296578399912.dkr.ecr.ap-southeast-3.amazonaws.com/{EFA}",
        f"918309763551.dkr.ecr.cn-north-1.amazonaws.com.cn/{EFA}",
        f"013241004608.dkr.ecr.us-gov-west-1.amazonaws.com/{EFA}",
        f"626887787726.dkr.ecr.eu-south-2.amazonaws.com/{AGENT}",
        "nvcr.io/nvidia/k8s-device-plugin:v0.17.1",
        "public.ecr.aws/neuron/neuron-device-plugin:2.19.16.0",
        "111122223333.dkr.ecr.us-east-1.amazonaws.com/my-own/trainer:1",
    ],
)
def test_registries_that_serve_the_image_s_region_pull(image: str) -> None:
    assert pull_error(image) is None


@pytest.mark.parametrize(
    ("image", "why"),
    [
        # EKS's shared account does not serve opt-in Regions, China or GovCloud.
        (f"602401143452.dkr.ecr.ap-southeast-3.amazonaws.com/{EFA}", "not found"),
        (f"602401143452.dkr.ecr.cn-north-1.amazonaws.com.cn/{EFA}", "not found"),
        (f"602401143452.dkr.ecr.us-gov-west-1.amazonaws.com/{EFA}", "not found"),
        # The health agent's us-west-2 account in us-east-1, and an EKS account asked for the agent.
        (f"905418368575.dkr.ecr.us-east-1.amazonaws.com/{AGENT}", "not found"),
        (f"602401143452.dkr.ecr.us-east-1.amazonaws.com/{AGENT}", "not found"),
        # A China registry named with the aws partition's DNS suffix does not resolve.
        (f"918309763551.dkr.ecr.cn-north-1.amazonaws.com/{EFA}", "no such host"),
    ],
)
def test_an_aws_registry_that_does_not_serve_the_image_s_region_fails_the_pull(image: str, why: str) -> None:
    assert why in (pull_error(image) or "")
