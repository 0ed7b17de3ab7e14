"""The check that the HyperPod dependency DaemonSets run on the nodes that joined, against in-memory EKS and
Kubernetes: Ready on every node they select, waiting otherwise, failing at once on an image that cannot be pulled."""

from __future__ import annotations

from typing import Any

import pytest

from controlplane.core.dependencies.node_agents import NodeAgentCheck, runs_on
from controlplane.core.operations.inputs import workflow_input
from controlplane.core.polling import Poller, PollSettings
from controlplane.core.ports.kubernetes import DaemonPod, KubernetesNode, NodeTaint
from controlplane.models.errors import DependencyFailedError
from controlplane.models.operations import OperationKind
from tests.fakes.account import ACCOUNT_ID
from tests.fakes.eks import InMemoryEksGateway
from tests.fakes.kubernetes import InMemoryKubernetesGateway, LabelledPod

EKS = "eks-cluster-demo"
AGENT_IMAGE = "905418368575.dkr.ecr.us-east-1.amazonaws.com/hyperpod-health-monitoring-agent:1"


def daemon_set(name: str, instance_types: list[str], tolerations: list[dict[str, str]] | None = None) -> dict[str, Any]:
    term = {
        "matchExpressions": [{"key": "node.kubernetes.io/instance-type", "operator": "In", "values": instance_types}]
    }
    return {
        "apiVersion": "apps/v1",
        "kind": "DaemonSet",
        "metadata": {"name": name, "namespace": "aws-hyperpod"},
        "spec": {
            "selector": {"matchLabels": {"app": name}},
            "template": {
                "metadata": {"labels": {"app": name}},
                "spec": {
                    "affinity": {
                        "nodeAffinity": {
                            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [term]}
                        }
                    },
                    "tolerations": tolerations or [],
                    "containers": [{"name": name, "image": "x"}],
                },
            },
        },
    }


MANIFESTS = [
    {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "aws-hyperpod"}},
    daemon_set("agent", ["ml.g6.4xlarge"], [{"operator": "Exists", "effect": "NoSchedule"}]),
    daemon_set("neuron-plugin", ["ml.trn1.32xlarge"]),
]


def node(name: str, instance_type: str, ready: bool = True, taints: tuple[NodeTaint, ...] = ()) -> KubernetesNode:
    labels = {"node.kubernetes.io/instance-type": instance_type, "sagemaker.amazonaws.com/compute-type": "hyperpod"}
    return KubernetesNode(name, ready, True, labels, {}, {}, taints=taints)


def pod(owner: str, name: str, node_name: str, ready: bool = True, **waiting: str) -> LabelledPod:
    return LabelledPod("aws-hyperpod", {"app": owner}, DaemonPod(name, node_name, ready, **waiting))


@pytest.fixture
def world(clock) -> tuple[NodeAgentCheck, InMemoryKubernetesGateway]:
    eks = InMemoryEksGateway()
    cluster = eks.add_cluster(EKS)
    kubernetes = InMemoryKubernetesGateway()
    kubernetes.apply(cluster, "us-west-2", MANIFESTS)
    poller = Poller(PollSettings(first_wait_seconds=5, max_wait_seconds=5), clock)
    return NodeAgentCheck(eks, kubernetes, lambda region: MANIFESTS, poller), kubernetes


@pytest.fixture
def ctx(make_record):
    return workflow_input(OperationKind.CONFIGURE_CLUSTER_DEPENDENCIES, "op-1", make_record("eks"), ACCOUNT_ID)


def test_the_check_is_done_when_each_daemon_set_is_ready_on_every_node_it_selects(world, ctx) -> None:
    check, kubernetes = world
    api = kubernetes.api(EKS)
    api.nodes += [node("gpu-1", "ml.g6.4xlarge"), node("gpu-2", "ml.g6.4xlarge")]
    api.daemon_pods += [pod("agent", "agent-a", "gpu-1"), pod("agent", "agent-b", "gpu-2")]

    state = check.check_node_agents(ctx)

    assert (state.done, state.status) == (True, "Ready on 2 HyperPod node(s)")


def test_the_check_waits_for_a_selected_node_whose_pod_is_missing_or_not_ready(world, ctx) -> None:
    check, kubernetes = world
    api = kubernetes.api(EKS)
    api.nodes += [node("gpu-1", "ml.g6.4xlarge"), node("gpu-2", "ml.g6.4xlarge"), node("trn-1", "ml.trn1.32xlarge")]
    api.daemon_pods += [pod("agent", "agent-a", "gpu-1"), pod("agent", "agent-b", "gpu-2", ready=False)]

    state = check.check_node_agents(ctx)

    assert (state.done, state.status) == (False, "waiting for agent on gpu-2, neuron-plugin on trn-1")
    assert state.waitSeconds == 5


def test_nodes_not_ready_or_with_untolerated_taints_are_not_waited_for(world, ctx) -> None:
    check, kubernetes = world
    api = kubernetes.api(EKS)
    api.nodes += [
        node("gpu-down", "ml.g6.4xlarge", ready=False),
        node("trn-team", "ml.trn1.32xlarge", taints=(NodeTaint("team", "a", "NoSchedule"),)),
    ]

    assert check.check_node_agents(ctx).done is True


@pytest.mark.parametrize("reason", ["ImagePullBackOff", "ErrImagePull"])
def test_a_pod_that_cannot_pull_its_image_fails_the_check_naming_pod_image_and_reason(world, ctx, reason) -> None:
    check, kubernetes = world
    api = kubernetes.api(EKS)
    api.nodes.append(node("gpu-1", "ml.g6.4xlarge"))
    message = f'Back-off pulling image "{AGENT_IMAGE}"'
    api.daemon_pods.append(
        pod("agent", "agent-a", "gpu-1", ready=False, image=AGENT_IMAGE, waiting_reason=reason, waiting_message=message)
    )

    with pytest.raises(DependencyFailedError) as failed:
        check.check_node_agents(ctx)

    assert f"Pod aws-hyperpod/agent-a on node gpu-1 cannot pull image {AGENT_IMAGE}: {reason}" in failed.value.message
    assert "must serve us-west-2" in failed.value.message and "/operations/op-1/resume" in failed.value.message
    assert failed.value.details == {"pod": "aws-hyperpod/agent-a", "image": AGENT_IMAGE, "reason": reason}


@pytest.mark.parametrize(
    ("expressions", "selected"),
    [
        ([{"key": "zone", "operator": "In", "values": ["a"]}], True),
        ([{"key": "zone", "operator": "NotIn", "values": ["a"]}], False),
        ([{"key": "zone", "operator": "Exists"}], True),
        ([{"key": "zone", "operator": "DoesNotExist"}], False),
        ([{"key": "gpu", "operator": "DoesNotExist"}, {"key": "zone", "operator": "In", "values": ["a"]}], True),
    ],
)
def test_required_node_affinity_selects_nodes_as_kubernetes_does(expressions, selected) -> None:
    spec = {
        "affinity": {
            "nodeAffinity": {
                "requiredDuringSchedulingIgnoredDuringExecution": {
                    "nodeSelectorTerms": [{"matchExpressions": expressions}]
                }
            }
        }
    }

    assert runs_on(spec, KubernetesNode("n", True, True, {"zone": "a"}, {}, {})) is selected


def test_a_daemon_set_pod_tolerates_the_taints_the_controller_tolerates_for_it() -> None:
    cordoned = KubernetesNode(
        "n", True, False, {}, {}, {}, taints=(NodeTaint("node.kubernetes.io/unschedulable", "", "NoSchedule"),)
    )
    health = NodeTaint("sagemaker.amazonaws.com/node-health-status", "Unschedulable", "NoSchedule")
    unhealthy = KubernetesNode("n", True, False, {}, {}, {}, taints=(health,))
    tolerant = {
        "tolerations": [{"key": health.key, "operator": "Equal", "value": "Unschedulable", "effect": "NoSchedule"}]
    }

    assert runs_on({}, cordoned) is True
    assert runs_on({}, unhealthy) is False
    assert runs_on(tolerant, unhealthy) is True


def test_a_daemon_set_the_cluster_does_not_have_is_not_waited_for(world, ctx) -> None:
    """An imported cluster whose dependencies were adopted runs the chart's own DaemonSets, under other names."""
    check, kubernetes = world
    api = kubernetes.api(EKS)
    del api.objects["DaemonSet/aws-hyperpod/neuron-plugin"]
    api.nodes.append(node("trn-1", "ml.trn1.32xlarge"))

    assert check.check_node_agents(ctx).done is True
