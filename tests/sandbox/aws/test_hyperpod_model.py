"""The HyperPod simulation and its rules on their own: a fake account, a hand-moved clock, no moto, no HTTP."""

import os
import subprocess
import sys
from dataclasses import dataclass, field, replace
from typing import Any

import pytest

from sandbox.aws.hyperpod import rules
from sandbox.aws.hyperpod.access import Caller, RolePolicies
from sandbox.aws.hyperpod.kubernetes import HEALTH_LABEL, HyperPodKubernetes
from sandbox.aws.hyperpod.model import (
    LATEST_IMAGE_VERSION,
    PENDING_REPLACEMENT,
    ClusterNodes,
    ClusterSettings,
    GroupSpec,
    HyperPodError,
    Node,
    Taint,
)
from sandbox.aws.hyperpod.simulation import HyperPodSimulation
from sandbox.k8s.emulator import KubernetesEmulator

WHERE = ("123456789012", "us-west-2")
EKS_ARN = "arn:aws:eks:us-west-2:123456789012:cluster/ml-eks"
SECONDS = 10.0


@dataclass
class FakeAccount:
    subnets: dict[str, str] = field(default_factory=lambda: {"subnet-a": "us-west-2a", "subnet-b": "us-west-2b"})
    eks: dict[str, tuple[str, str]] = field(default_factory=lambda: {"ml-eks": ("ACTIVE", "API_AND_CONFIG_MAP")})
    roles: dict[str, RolePolicies] = field(default_factory=dict)
    calling: Caller | None = None

    def subnet_zone(self, where: tuple[str, str], subnet_id: str) -> tuple[str, str]:
        zone = self.subnets[subnet_id]  # KeyError is a LookupError
        return zone, self.zone_id(where, zone)

    def zone_id(self, where: tuple[str, str], zone: str) -> str:
        return f"usw2-az{zone[-1:] or 'a'}"

    def eks_cluster(self, where: tuple[str, str], name: str) -> tuple[str, str] | None:
        return self.eks.get(name)

    def eks_cluster_tags(self, where: tuple[str, str], name: str) -> dict[str, str]:
        return {}

    def role_policies(self, where: tuple[str, str], role_arn: str) -> RolePolicies | None:
        return self.roles.get(role_arn)

    def caller(self, where: tuple[str, str]) -> Caller | None:
        return self.calling


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class Sim:
    simulation: HyperPodSimulation
    clock: Clock
    emulator: KubernetesEmulator
    account: FakeAccount

    def later(self, steps: int = 1) -> None:
        """Let ``steps`` transitions' worth of time pass, and the transitions that came due happen."""
        self.clock.now += SECONDS * steps + 0.001
        self.simulation.advance()

    def create(self, *groups: GroupSpec, name: str = "hp", **settings: Any) -> None:
        values = {"subnets": ("subnet-a",), "eks_cluster_arn": EKS_ARN, **settings}
        self.simulation.create_cluster(WHERE, name, list(groups) or [group()], ClusterSettings(**values), {})

    def ready(self, *groups: GroupSpec, name: str = "hp", **settings: Any) -> None:
        self.create(*groups, name=name, **settings)
        self.later()

    def status(self, name: str = "hp") -> str:
        return self.simulation.cluster(WHERE, name).status

    def kubernetes_nodes(self) -> dict[str, dict[str, Any]]:
        return {n["metadata"]["name"]: n for n in self.emulator.store("ml-eks").list("", "v1", "nodes")}

    def node_ids(self, name: str = "hp") -> list[str]:
        return [node.instance_id for node in self.simulation.cluster(WHERE, name).nodes]


def group(name: str = "workers", count: int = 2, **fields: Any) -> GroupSpec:
    values = {"instance_type": "ml.g6.4xlarge", "lifecycle_source": "s3://sagemaker-bucket/lifecycle/", **fields}
    return GroupSpec(name=name, count=count, **values)


@pytest.fixture
def sim() -> Sim:
    clock, emulator, account = Clock(), KubernetesEmulator(), FakeAccount()
    simulation = HyperPodSimulation(HyperPodKubernetes(emulator), account, seconds=SECONDS, clock=clock)
    return Sim(simulation, clock, emulator, account)


def refusal(call: Any) -> HyperPodError:
    with pytest.raises(HyperPodError) as raised:
        call()
    return raised.value


def test_the_model_layers_import_neither_moto_nor_an_http_server() -> None:
    code = (
        "import sys, sandbox.aws.hyperpod.wire.operations, sandbox.aws.eks.addons, sandbox.k8s.emulator;"
        "print(sorted({m.split('.')[0] for m in sys.modules} & {'moto', 'starlette', 'botocore'}))"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env).stdout

    assert found.strip() == "[]"


# --- lifecycle ---------------------------------------------------------------------------------


def test_a_cluster_is_creating_without_nodes_then_in_service_with_a_node_object_per_instance(sim: Sim) -> None:
    sim.create(group(labels={"team": "research"}, taints=(Taint("dedicated", "NoSchedule", "gpu"),)))

    cluster = sim.simulation.cluster(WHERE, "hp")
    assert (cluster.status, cluster.group_status(cluster.groups["workers"]), list(cluster.nodes)) == (
        "Creating",
        "Creating",
        [],
    )
    sim.later()

    assert sim.status() == "InService"
    nodes = sim.kubernetes_nodes()
    assert set(nodes) == {f"hyperpod-{node_id}" for node_id in sim.node_ids()}
    node = next(iter(nodes.values()))
    assert node["metadata"]["labels"]["team"] == "research"
    assert node["metadata"]["labels"]["topology.kubernetes.io/zone"] == "us-west-2a"
    assert node["spec"]["taints"] == [{"key": "dedicated", "effect": "NoSchedule", "value": "gpu"}]
    assert node["status"]["capacity"]["nvidia.com/gpu"] == "1"
    assert cluster.groups["workers"].current_labels == {"team": "research"}


def test_a_cluster_is_found_by_name_or_arn_and_an_unknown_one_is_resource_not_found(sim: Sim) -> None:
    sim.create()
    arn = sim.simulation.cluster(WHERE, "hp").arn

    assert sim.simulation.cluster(WHERE, arn).name == "hp"
    assert refusal(lambda: sim.simulation.cluster(WHERE, "nope")).code == "ResourceNotFound"
    assert refusal(lambda: sim.simulation.cluster(("123456789012", "eu-west-1"), "hp")).code == "ResourceNotFound"


def test_nodes_spread_over_the_group_subnets_and_spot_groups_run_spot(sim: Sim) -> None:
    sim.ready(group(count=4, capacity_types=("Spot",)), subnets=("subnet-a", "subnet-b"))

    nodes = sim.simulation.cluster(WHERE, "hp").nodes
    assert sorted(node.zone for node in nodes) == ["us-west-2a", "us-west-2a", "us-west-2b", "us-west-2b"]
    assert {node.capacity_type for node in nodes} == {"Spot"}


def test_updating_scales_adds_and_relabels_groups_while_the_cluster_is_updating(sim: Sim) -> None:
    sim.ready()

    sim.simulation.update_cluster(
        WHERE, "hp", [group(count=3, labels={"tier": "gpu"}), group("cpu", 1, instance_type="ml.m5.xlarge")], []
    )

    cluster = sim.simulation.cluster(WHERE, "hp")
    assert cluster.status == "Updating"
    assert [(g.name, cluster.group_status(g), g.target) for g in cluster.groups.values()] == [
        ("workers", "Updating", 3),
        ("cpu", "Creating", 1),
    ]
    sim.later()
    assert sim.status() == "InService"
    assert len(sim.kubernetes_nodes()) == 4
    workers = [
        n
        for n in sim.kubernetes_nodes().values()
        if n["metadata"]["labels"]["sagemaker.amazonaws.com/instance-group-name"] == "workers"
    ]
    assert all(n["metadata"]["labels"]["tier"] == "gpu" for n in workers)


def test_an_update_without_an_instance_type_keeps_the_group_s(sim: Sim) -> None:
    sim.ready()

    sim.simulation.update_cluster(WHERE, "hp", [GroupSpec(name="workers", count=1)], [])
    sim.later()

    cluster = sim.simulation.cluster(WHERE, "hp")
    assert cluster.groups["workers"].spec.instance_type == "ml.g6.4xlarge"
    assert [node.instance_type for node in cluster.nodes] == ["ml.g6.4xlarge"]


def test_a_continuous_cluster_stays_in_service_while_it_scales(sim: Sim) -> None:
    sim.ready(continuous=True)

    sim.simulation.update_cluster(WHERE, "hp", [group(count=4)], [])

    cluster = sim.simulation.cluster(WHERE, "hp")
    assert (cluster.status, cluster.group_status(cluster.groups["workers"])) == ("InService", "InService")
    assert cluster.groups["workers"].scaling == 1


def test_updates_wait_until_the_cluster_is_in_service(sim: Sim) -> None:
    sim.create()

    assert refusal(lambda: sim.simulation.update_cluster(WHERE, "hp", [group(count=3)], [])).code == "ConflictException"
    sim.later()
    sim.simulation.update_cluster(WHERE, "hp", [group(count=3)], [])
    assert refusal(lambda: sim.simulation.update_software(WHERE, "hp", None)).code == "ConflictException"


def test_deleting_a_group_terminates_its_nodes(sim: Sim) -> None:
    sim.ready(group(), group("cpu", 1, instance_type="ml.m5.xlarge"))

    sim.simulation.update_cluster(WHERE, "hp", [], ["cpu"])
    cluster = sim.simulation.cluster(WHERE, "hp")
    assert cluster.group_status(cluster.groups["cpu"]) == "Deleting"
    sim.later()

    assert list(sim.simulation.cluster(WHERE, "hp").groups) == ["workers"]
    assert len(sim.kubernetes_nodes()) == 2


def test_a_software_update_moves_groups_and_nodes_to_the_new_image(sim: Sim) -> None:
    sim.ready()

    sim.simulation.update_software(WHERE, "hp", None)

    cluster = sim.simulation.cluster(WHERE, "hp")
    assert cluster.status == "SystemUpdating"
    assert cluster.groups["workers"].software_status == "InProgress"
    sim.later()
    workers = sim.simulation.cluster(WHERE, "hp").groups["workers"]
    assert (workers.software_status, workers.image_version) == ("Succeeded", LATEST_IMAGE_VERSION)
    assert all(node.image_version == LATEST_IMAGE_VERSION and node.last_software_update for node in cluster.nodes)


def test_deleting_a_cluster_removes_its_nodes_then_the_cluster(sim: Sim) -> None:
    sim.ready()

    sim.simulation.delete_cluster(WHERE, "hp")

    assert sim.status() == "Deleting"
    sim.later()
    assert refusal(lambda: sim.simulation.cluster(WHERE, "hp")).code == "ResourceNotFound"
    assert sim.kubernetes_nodes() == {}


# --- nodes -------------------------------------------------------------------------------------


def test_a_rebooting_node_is_pending_and_not_ready_until_it_is_back(sim: Sim) -> None:
    sim.ready()
    node_id = sim.node_ids()[0]

    outcome = sim.simulation.reboot_nodes(WHERE, "hp", [node_id, "i-unknown"])

    assert outcome.successful == [node_id]
    assert [(f.node_id, f.code) for f in outcome.failed] == [("i-unknown", "InstanceIdNotFound")]
    assert sim.simulation.cluster(WHERE, "hp").node(node_id).status == "Pending"  # type: ignore[union-attr]
    ready = sim.kubernetes_nodes()[f"hyperpod-{node_id}"]["status"]["conditions"][0]["status"]
    assert ready == "Unknown"
    assert refusal(lambda: sim.simulation.replace_nodes(WHERE, "hp", [])).code == "ValidationException"
    again = sim.simulation.replace_nodes(WHERE, "hp", [node_id])
    assert [f.code for f in again.failed] == ["InvalidInstanceStatus"]
    sim.later()
    assert sim.kubernetes_nodes()[f"hyperpod-{node_id}"]["status"]["conditions"][0]["status"] == "True"


def test_a_replaced_node_gives_way_to_a_new_instance(sim: Sim) -> None:
    sim.ready()
    old = sim.node_ids()[0]

    sim.simulation.replace_nodes(WHERE, "hp", [old])
    sim.later()

    assert old not in sim.node_ids() and len(sim.node_ids()) == 2
    assert f"hyperpod-{old}" not in sim.kubernetes_nodes()


def test_node_actions_send_an_instance_cluster_event_under_continuous_provisioning_and_no_state_change(
    sim: Sim,
) -> None:
    """HyperPod's events reference: Cluster State Change on cluster status transitions only; Cluster Events (for
    instances among others) only for clusters that provision continuously."""
    sent: list[dict[str, Any]] = []
    sim.simulation.on_event(sent.append)
    sim.ready(group(count=3), continuous=True)
    sim.ready(group(count=1), name="classic")
    assert [(e["detail"]["ClusterName"], e["detail"]["ClusterStatus"]) for e in sent] == [
        ("hp", "Creating"),
        ("hp", "InService"),
        ("classic", "Creating"),
        ("classic", "InService"),
    ]
    sent.clear()
    rebooted, replaced, deleted = sim.node_ids()
    sim.simulation.reboot_nodes(WHERE, "hp", [rebooted])
    sim.simulation.replace_nodes(WHERE, "hp", [replaced])
    sim.simulation.delete_nodes(WHERE, "hp", [deleted])
    sim.simulation.reboot_nodes(WHERE, "classic", sim.node_ids("classic"))
    sim.later()

    assert {e["detail-type"] for e in sent} == {"SageMaker HyperPod Cluster Event"}
    details = [e["detail"]["EventDetails"] for e in sent]
    assert {(d["ClusterName"], d["InstanceId"], d["ResourceType"], d["EventLevel"]) for d in details} == {
        ("hp", node, "Instance", "Info") for node in (rebooted, replaced, deleted)
    }


def test_deleting_nodes_lowers_the_target_and_accepts_a_rebooting_node(sim: Sim) -> None:
    sim.ready(group(count=3))
    first, second, _ = sim.node_ids()
    sim.simulation.reboot_nodes(WHERE, "hp", [first])

    outcome = sim.simulation.delete_nodes(WHERE, "hp", [first, second, "i-unknown"])
    sim.later()

    assert outcome.successful == [first, second]
    assert [f.code for f in outcome.failed] == ["NodeIdNotFound"]
    cluster = sim.simulation.cluster(WHERE, "hp")
    assert (cluster.groups["workers"].target, len(cluster.nodes)) == (1, 1)


def test_an_unhealthy_node_is_tainted_and_replaced_under_automatic_recovery(sim: Sim) -> None:
    sim.ready()
    victim = sim.node_ids()[0]

    sim.simulation.mark_node_unhealthy("hp", victim)

    node = sim.kubernetes_nodes()[f"hyperpod-{victim}"]
    assert node["metadata"]["labels"][HEALTH_LABEL] == PENDING_REPLACEMENT
    assert {"key": HEALTH_LABEL, "value": "Unschedulable", "effect": "NoSchedule"} in node["spec"]["taints"]
    sim.later()
    assert victim not in sim.node_ids() and len(sim.node_ids()) == 2


def test_while_time_is_held_no_transition_runs_and_those_due_run_after(sim: Sim) -> None:
    sim.ready()
    victim = sim.node_ids()[0]

    with sim.simulation.held():
        sim.simulation.mark_node_unhealthy("hp", victim)
        sim.later(3)
        assert victim in sim.node_ids()
    sim.simulation.advance()

    assert victim not in sim.node_ids() and len(sim.node_ids()) == 2


def test_without_automatic_recovery_an_unhealthy_node_stays(sim: Sim) -> None:
    sim.ready(automatic_recovery=False)
    victim = sim.node_ids()[0]

    sim.simulation.mark_node_unhealthy("hp", victim)
    sim.later(3)

    assert victim in sim.node_ids()
    with pytest.raises(KeyError):
        sim.simulation.mark_node_unhealthy("hp", "i-unknown")


# --- training plans and autoscaling ------------------------------------------------------------


def test_a_training_plan_places_nodes_in_its_zone_and_counts_them(sim: Sim) -> None:
    arn = sim.simulation.add_training_plan("us-west-2", "p5", "ml.p5.48xlarge", 4, "us-west-2b")
    plan = sim.simulation.training_plan(WHERE, "p5")

    sim.ready(group(count=2, instance_type="ml.p5.48xlarge", training_plan_arn=arn), subnets=("subnet-a", "subnet-b"))

    nodes = sim.simulation.cluster(WHERE, "hp").nodes
    assert {(node.zone, node.subnet_id) for node in nodes} == {("us-west-2b", "subnet-b")}
    assert sim.simulation.nodes_on_plan(plan) == 2
    assert sim.simulation.training_plan(WHERE, arn) == plan
    assert refusal(lambda: sim.simulation.training_plan(WHERE, "other")).code == "ResourceNotFound"


def test_enabling_autoscaling_serves_karpenter_kinds_until_it_is_disabled(sim: Sim) -> None:
    sim.ready(continuous=True)
    cluster = sim.simulation.cluster(WHERE, "hp")
    enabled = replace(cluster.settings, cluster_role="arn:aws:iam::123456789012:role/hp", autoscaling=True)

    def crds() -> set[str]:
        return {
            c["metadata"]["name"]
            for c in sim.emulator.store("ml-eks").list("apiextensions.k8s.io", "v1", "customresourcedefinitions")
        }

    sim.simulation.update_cluster(WHERE, "hp", [], [], enabled, autoscaling=True)
    assert cluster.autoscaling_status == "Creating"
    sim.later()
    assert cluster.autoscaling_status == "InService"
    assert "nodepools.karpenter.sh" in crds()
    changed_role = replace(enabled, cluster_role="arn:aws:iam::123456789012:role/other")
    assert "ClusterRole" in refusal(lambda: sim.simulation.update_cluster(WHERE, "hp", [], [], changed_role)).message

    sim.simulation.update_cluster(WHERE, "hp", [], [], replace(enabled, autoscaling=False), autoscaling=False)
    assert cluster.autoscaling_status == "Deleting"
    sim.later()
    assert not {name for name in crds() if "karpenter" in name}


# --- rules -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "fragment"),
    [
        (group(lifecycle_source="s3://my-bucket/x"), "s3://sagemaker-"),
        (group(capacity_types=("Spot", "OnDemand")), "Spot or OnDemand"),
        (group(instance_type="ml.m5.xlarge", deep_health_checks=True), "deep health checks"),
        (group(deep_health_checks=True, taints=(Taint("a", "NoSchedule"),)), "custom taints"),
        (group(instance_type=None), "InstanceType is required"),
        (group(instance_types=("ml.m5.xlarge",)), "not both"),
    ],
)
def test_a_group_the_service_would_refuse_is_a_validation_exception(spec: GroupSpec, fragment: str) -> None:
    error = refusal(lambda: rules.check_group(spec))

    assert error.code == "ValidationException" and fragment in error.message


@pytest.mark.parametrize(
    ("settings", "fragment"),
    [
        (ClusterSettings(autoscaling=True, cluster_role="r"), "Continuous"),
        (ClusterSettings(autoscaling=True, continuous=True), "ClusterRole is required"),
        (ClusterSettings(tiered_memory_percentage=10), "between 20 and 100"),
    ],
)
def test_cluster_settings_the_service_would_refuse(settings: ClusterSettings, fragment: str) -> None:
    assert fragment in refusal(lambda: rules.check_settings(settings)).message


@pytest.mark.parametrize(
    ("change", "fragment"),
    [
        ({"eks_cluster_arn": "arn:aws:eks:eu-west-1:123456789012:cluster/ml-eks"}, "same account and region"),
        ({"eks_cluster_arn": "arn:aws:eks:us-west-2:123456789012:cluster/gone"}, "Unable to find"),
        ({"subnets": ("subnet-nope",)}, "does not exist"),
    ],
)
def test_a_create_that_names_what_the_account_lacks_is_refused_and_creates_nothing(
    sim: Sim, change: dict[str, Any], fragment: str
) -> None:
    assert fragment in refusal(lambda: sim.create(**change)).message
    assert refusal(lambda: sim.simulation.cluster(WHERE, "hp")).code == "ResourceNotFound"


def test_the_orchestrator_must_be_active_and_use_api_authentication(sim: Sim) -> None:
    sim.account.eks["creating"] = ("CREATING", "API")
    sim.account.eks["legacy"] = ("ACTIVE", "CONFIG_MAP")

    creating = refusal(lambda: sim.create(eks_cluster_arn=EKS_ARN.replace("ml-eks", "creating")))
    legacy = refusal(lambda: sim.create(eks_cluster_arn=EKS_ARN.replace("ml-eks", "legacy")))

    assert "must be ACTIVE" in creating.message
    assert "API_AND_CONFIG_MAP" in legacy.message


def test_names_must_be_new_and_groups_unique_and_present(sim: Sim) -> None:
    sim.create()

    assert refusal(lambda: sim.create()).code == "ResourceInUse"
    assert "unique" in refusal(lambda: sim.create(group(), group(), name="twice")).message
    assert (
        "At least one"
        in refusal(lambda: sim.simulation.create_cluster(WHERE, "none", [], ClusterSettings(), {})).message
    )


def test_a_group_on_a_training_plan_must_fit_the_plan(sim: Sim) -> None:
    arn = sim.simulation.add_training_plan("us-west-2", "p5", "ml.p5.48xlarge", 2, "us-west-2b")

    wrong_type = refusal(lambda: sim.create(group(training_plan_arn=arn), subnets=("subnet-b",)))
    wrong_zone = refusal(lambda: sim.create(group(instance_type="ml.p5.48xlarge", training_plan_arn=arn)))
    too_many = refusal(
        lambda: sim.create(group(count=3, instance_type="ml.p5.48xlarge", training_plan_arn=arn), subnets=("subnet-b",))
    )
    unknown = refusal(lambda: sim.create(group(training_plan_arn=arn + "-nope")))

    assert "does not match" in wrong_type.message
    assert "reserves capacity in us-west-2b" in wrong_zone.message
    assert "exceeds" in too_many.message
    assert "does not exist" in unknown.message


def test_a_group_cannot_change_instance_type_or_be_updated_and_deleted_at_once(sim: Sim) -> None:
    sim.ready()

    changed = refusal(lambda: sim.simulation.update_cluster(WHERE, "hp", [group(instance_type="ml.p5.48xlarge")], []))
    both = refusal(lambda: sim.simulation.update_cluster(WHERE, "hp", [group()], ["workers"]))
    missing = refusal(lambda: sim.simulation.update_cluster(WHERE, "hp", [], ["nope"]))

    assert "cannot be changed" in changed.message
    assert "both updated and deleted" in both.message
    assert "does not exist" in missing.message


# --- IAM: the caller's access entries, the nodes' execution role ------------------------------------------


def test_a_cluster_fails_with_the_access_entry_when_the_callers_policy_denies_it(sim: Sim) -> None:
    sim.account.calling = Caller("arn:aws:sts::123456789012:assumed-role/steps/s", [{"Statement": []}])
    sim.create(group(execution_role="arn:aws:iam::123456789012:role/exec"))
    sim.later()

    cluster = sim.simulation.cluster(WHERE, "hp")
    assert cluster.status == "Failed"
    assert cluster.failure_message is not None
    assert "not authorized to perform: eks:CreateAccessEntry" in cluster.failure_message
    assert list(cluster.nodes) == []


def test_a_node_whose_role_lacks_the_cni_actions_is_not_ready_in_kubernetes_while_hyperpod_runs_it(sim: Sim) -> None:
    role = "arn:aws:iam::123456789012:role/exec"
    sim.account.roles[role] = RolePolicies([{"Statement": [{"Effect": "Allow", "Action": "ecr:*", "Resource": "*"}]}])
    sim.ready(group(count=1, execution_role=role))

    (node,) = sim.simulation.cluster(WHERE, "hp").nodes
    (kubernetes,) = sim.kubernetes_nodes().values()
    assert node.status == "Running"
    assert "ec2:AssignPrivateIpAddresses" in node.missing_permissions
    assert kubernetes["status"]["conditions"][0]["status"] == "False"


# --- the node index ----------------------------------------------------------------------------


def indexed(instance_id: str, group: str, launched: float, subnet: str = "subnet-a") -> Node:
    return Node(
        instance_id,
        f"node-{instance_id}",
        group,
        "ml.g5.xlarge",
        subnet,
        "us-west-2a",
        "usw2-az1",
        "OnDemand",
        "10.0.0.1",
        launched,
    )


def test_the_node_index_lists_by_launch_time_by_group_and_since_and_counts_each_subnet() -> None:
    """DescribeCluster counts each group's nodes and ListClusterNodes pages them: at 5,000 nodes a scan of every node
    for each group and each page made GET /status 0.9 s."""
    nodes = ClusterNodes()
    first, spare, second, other = (
        indexed("i-b", "workers", 2.0),
        indexed("i-s", "spare", 1.0, subnet="subnet-b"),
        indexed("i-a", "workers", 3.0),
        indexed("i-o", "workers-2", 4.0),
    )
    for node in (second, spare, first, other):
        nodes.add(node)

    def ids(listed: Any) -> list[str]:
        return [node.instance_id for node in listed]

    assert ids(nodes) == ["i-s", "i-b", "i-a", "i-o"]
    assert ids(nodes.listed("workers")) == ["i-b", "i-a", "i-o"]
    assert ids(nodes.listed(launched_after=2.0)) == ["i-a", "i-o"]
    assert ids(nodes.listed("workers", launched_after=3.0)) == ["i-o"]
    assert (nodes.get("i-a"), nodes.in_group("spare"), nodes.in_subnet("subnet-a"), len(nodes)) == (
        second,
        [spare],
        3,
        4,
    )
    for node in nodes:
        nodes.remove(node)  # as a deleted cluster's nodes go
    assert (len(nodes), ids(nodes), nodes.in_group("workers"), nodes.in_subnet("subnet-a")) == (0, [], [], 0)
    assert first not in nodes and nodes.get("i-b") is None
