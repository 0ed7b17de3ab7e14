"""Stage 3 applies what the HyperPod Helm chart installs for a HyperPod cluster: exactly the objects of the reviewed
table (manifests/hyperpod-dependencies/chart-objects.json), the health agent and the EFA plugin as their charts have
them, and a device plugin and a health agent on every accelerated instance type the control plane offers."""

from __future__ import annotations

import json
from typing import Any

import pytest

from controlplane.adapters.k8s.manifests import MANIFESTS_DIR, render
from controlplane.config import cluster_dependencies
from controlplane.core.dependencies.node_agents import runs_on
from controlplane.core.dependencies.steps import ClusterDependencyService
from controlplane.core.operations.inputs import workflow_input
from controlplane.core.polling import Poller, PollSettings
from controlplane.core.ports.kubernetes import KubernetesNode
from controlplane.models.instance_types import INSTANCE_TYPES
from controlplane.models.operations import OperationKind
from tests.fakes.account import ACCOUNT_ID
from tests.fakes.deployment import DEPLOYMENT
from tests.fakes.eks import InMemoryEksGateway
from tests.fakes.iam import InMemoryIamGateway
from tests.fakes.kubernetes import InMemoryKubernetesGateway, describe

TABLE = json.loads((MANIFESTS_DIR / "hyperpod-dependencies" / "chart-objects.json").read_text())
HEALTH_AGENT_ARGS = {
    "health-monitoring-agent": None,
    "health-monitoring-agent-non-nvidia": [
        "--enable-k8s-exporter=false",
        "--config.system-log-monitor=/config/system-message-monitor.json",
    ],
}


def key(entry: dict[str, Any]) -> str:
    return describe({"kind": entry["kind"], "metadata": {"name": entry["name"], "namespace": entry["namespace"]}})


@pytest.fixture
def objects(clock, make_record) -> dict[str, dict[str, Any]]:
    """What stage 3's step applies to a us-west-2 cluster, through the real renderer and pins."""
    eks = InMemoryEksGateway()
    eks.add_cluster("eks-cluster-demo")
    kubernetes = InMemoryKubernetesGateway()
    poller = Poller(PollSettings(first_wait_seconds=1, max_wait_seconds=1), clock)
    service = ClusterDependencyService(
        InMemoryIamGateway(), eks, kubernetes, render, cluster_dependencies(), poller, "boundary", DEPLOYMENT
    )
    ctx = workflow_input(OperationKind.CONFIGURE_CLUSTER_DEPENDENCIES, "op-1", make_record("eks"), ACCOUNT_ID)
    service.apply_hyperpod_dependencies(ctx)
    return kubernetes.api("eks-cluster-demo").objects


def test_stage_3_applies_exactly_the_chart_objects_of_the_reviewed_table(objects) -> None:
    assert set(objects) == {key(entry) for entry in TABLE["applied"]}
    assert all(entry["source"] for entry in TABLE["applied"] + TABLE["omitted"])


def test_the_namespace_is_applied_before_what_lives_in_it(objects) -> None:
    order = list(objects)
    assert order[0] == "Namespace/aws-hyperpod"


def test_the_health_agent_daemon_sets_run_as_the_chart_has_them(objects) -> None:
    for name, args in HEALTH_AGENT_ARGS.items():
        spec = objects[f"DaemonSet/aws-hyperpod/{name}"]["spec"]["template"]["spec"]
        (container,) = spec["containers"]
        assert container.get("args") == args
        assert container["image"].startswith("905418368575.dkr.ecr.us-west-2.amazonaws.com/")
        assert spec["serviceAccountName"] == "health-monitoring-agent"
        mounts = {(m["mountPath"], m.get("readOnly", False)) for m in container["volumeMounts"]}
        assert mounts == {("/var/log", False), ("/dev/kmsg", True), ("/etc/localtime", True)}
        assert container["securityContext"] == {"runAsUser": 1000, "runAsGroup": 2000}


def test_the_efa_plugin_mounts_what_the_upstream_chart_mounts(objects) -> None:
    spec = objects["DaemonSet/kube-system/aws-efa-k8s-device-plugin"]["spec"]["template"]["spec"]
    (container,) = spec["containers"]
    volumes = {volume["name"]: volume["hostPath"]["path"] for volume in spec["volumes"]}
    mounts = {mount["name"]: mount["mountPath"] for mount in container["volumeMounts"]}
    assert mounts == {
        "device-plugin": "/var/lib/kubelet/device-plugins",
        "infiniband-volume": "/dev/infiniband/",
        "neuron-tools": "/opt/aws/neuron/",
    }
    assert volumes == mounts
    assert (spec["hostNetwork"], spec["automountServiceAccountToken"]) == (True, False)


def test_hyperpod_s_service_linked_role_may_evict_pods_for_patching(objects) -> None:
    rules = objects["ClusterRole/hyperpod-patching"]["rules"]
    binding = objects["ClusterRoleBinding/hyperpod-patching"]
    assert {"apiGroups": [""], "resources": ["pods/eviction"], "verbs": ["create"]} in rules
    assert binding["subjects"] == [
        {"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "hyperpod-service-linked-role"}
    ]


@pytest.mark.parametrize("instance_type", sorted(name for name, spec in INSTANCE_TYPES.items() if spec.gpus))
def test_every_accelerated_instance_type_offered_gets_its_device_plugins_and_a_health_agent(
    objects, instance_type: str
) -> None:
    spec = INSTANCE_TYPES[instance_type]
    node = KubernetesNode("n", True, True, {"node.kubernetes.io/instance-type": instance_type}, {}, {})
    selecting = {
        name.split("/")[-1]
        for name, obj in objects.items()
        if obj["kind"] == "DaemonSet" and runs_on(obj["spec"]["template"]["spec"], node)
    }
    nvidia = spec.accelerator.startswith("nvidia")
    expected = (
        {"nvidia-device-plugin", "health-monitoring-agent"}
        if nvidia
        else {"neuron-device-plugin-daemonset", "health-monitoring-agent-non-nvidia"}
    )
    if spec.efa_interfaces:
        expected.add("aws-efa-k8s-device-plugin")
    assert selecting == expected
