"""The monitoring service against in-memory fakes: what the overview counts over every page, what it caps, why pods
wait, the observability links, and the pods' pages."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from controlplane.core.features.catalog.observability import OBSERVABILITY_ADDON
from controlplane.core.monitoring.service import MonitoringService
from controlplane.core.monitoring.tally import Capped
from controlplane.core.ports.hyperpod import HyperPodCluster, InstanceGroup
from controlplane.core.ports.kubernetes import ClusterEvent, KubernetesNode, PodFacts
from controlplane.core.registry import ClusterService
from controlplane.models.errors import ClusterNotReadyError, InvalidRequestError
from controlplane.models.hyperpod_activity import ClusterEventView
from controlplane.models.monitoring import OVERVIEW_EVENTS, OVERVIEW_NODES, OVERVIEW_PENDING_PODS
from controlplane.models.status import GPU_RESOURCE, GROUP_LABEL, HEALTH_LABEL, INSTANCE_TYPE_LABEL
from tests.fakes.eks import InMemoryEksGateway
from tests.fakes.hyperpod_activity import InMemoryHyperPodActivity
from tests.fakes.monitoring import InMemoryClusterReads
from tests.fakes.persistence import InMemoryClusterRegistry

EKS_NAME = "eks-cluster-demo"


def node(name: str, group: str, gpus: int = 8, ready: bool = True, schedulable: bool = True, health: str | None = None):
    labels = {GROUP_LABEL: group, INSTANCE_TYPE_LABEL: "ml.p5.48xlarge"}
    if health:
        labels[HEALTH_LABEL] = health
    capacity = {GPU_RESOURCE: str(gpus)}
    return KubernetesNode(name, ready, schedulable, labels, capacity, capacity)


def pod(
    name: str,
    node_name: str | None,
    phase: str = "Running",
    gpus: int = 0,
    created: str = "2026-01-01T00:00:00Z",
    reason: str | None = None,
    namespace: str = "team",
) -> PodFacts:
    return PodFacts(
        namespace, name, node_name, phase, gpus, 0, created, reason, f"{reason} says why" if reason else None
    )


def event(index: int, at: str | None) -> ClusterEvent:
    return ClusterEvent("team", f"Pod/p-{index}", "BackOff", f"event {index}", at, 1)


@pytest.fixture
def reads() -> InMemoryClusterReads:
    return InMemoryClusterReads()


@pytest.fixture
def eks(make_record, registry: InMemoryClusterRegistry) -> InMemoryEksGateway:
    registry.create(make_record("eks", "dependencies", "hyperpod", hyperPodClusterName="hp-cluster-demo"))
    gateway = InMemoryEksGateway()
    gateway.add_cluster(EKS_NAME)
    return gateway


@pytest.fixture
def monitoring(clusters: ClusterService, eks: InMemoryEksGateway, hyperpod, reads, activity) -> MonitoringService:
    return MonitoringService(clusters, lambda region: eks, lambda region: hyperpod, reads, lambda region: activity)


@pytest.fixture
def activity() -> InMemoryHyperPodActivity:
    return InMemoryHyperPodActivity()


def test_overview_counts_gpus_used_by_unfinished_pods_per_node_group_and_cluster(monitoring, reads, hyperpod):
    contents = reads.contents(EKS_NAME)
    contents.nodes = [node("n-1", "workers"), node("n-2", "workers"), node("n-3", "spare", gpus=4)]
    contents.pods = [
        pod("a", "n-1", gpus=4),
        pod("b", "n-1", gpus=2, phase="Pending"),
        pod("done", "n-1", gpus=8, phase="Succeeded"),
        pod("failed", "n-2", gpus=8, phase="Failed"),
        pod("c", "n-2", gpus=8),
        pod("daemon", "n-3"),
    ]
    hyperpod.clusters["hp-cluster-demo"] = HyperPodCluster(
        "hp-cluster-demo",
        "arn",
        "InService",
        None,
        (
            InstanceGroup("workers", "ml.p5.48xlarge", "InService", 2, 3),
            InstanceGroup("empty", "ml.g5.xlarge", "InService", 0, 0),
        ),
    )

    overview = monitoring.overview("demo")

    assert overview.hyperPodStatus == "InService"
    assert overview.gpus.model_dump() == {"total": 20, "allocatable": 20, "used": 14, "available": 6}
    by_node = {entry.name: entry.gpus for entry in overview.nodes}
    assert (by_node["n-1"].used, by_node["n-1"].available) == (6, 2)
    assert (by_node["n-2"].used, by_node["n-2"].available) == (8, 0)
    groups = {group.name: group for group in overview.groups}
    assert [group.name for group in overview.groups] == ["workers", "empty", "spare"]
    assert (groups["workers"].currentCount, groups["workers"].targetCount, groups["workers"].nodes) == (2, 3, 2)
    assert groups["workers"].gpus.used == 14 and groups["empty"].nodes == 0
    assert groups["spare"].status is None and groups["spare"].instanceType == "ml.p5.48xlarge"
    assert overview.podsTotal == 6
    assert overview.podsByPhase == {"Running": 3, "Pending": 1, "Succeeded": 1, "Failed": 1}


def test_overview_counts_nodes_by_state_and_health_and_lists_the_not_ready_first(monitoring, reads):
    reads.contents(EKS_NAME).nodes = [
        node("n-1", "workers", health="Schedulable"),
        node("n-2", "workers", ready=False, health="UnschedulablePendingReplacement"),
        node("n-3", "workers", schedulable=False, health="Schedulable"),
        node("n-4", "workers"),
    ]

    overview = monitoring.overview("demo")

    assert overview.nodesByState == {"Ready": 2, "NotReady": 1, "Cordoned": 1}
    assert overview.nodesByHealth == {"Schedulable": 2, "UnschedulablePendingReplacement": 1, "Unknown": 1}
    assert overview.nodesUnhealthy == 1
    assert [entry.name for entry in overview.nodes][:2] == ["n-2", "n-3"]
    not_ready = overview.nodes[0]
    assert not_ready.gpus.allocatable == 8 and not_ready.gpus.available == 0
    assert overview.gpus.available == 16


def test_overview_caps_its_lists_and_counts_everything(monitoring, reads):
    contents = reads.contents(EKS_NAME)
    reads.page_size = 37
    contents.nodes = [node(f"n-{index:04d}", "workers") for index in range(OVERVIEW_NODES + 30)]
    contents.pods = [
        pod(f"p-{index:04d}", None, phase="Pending", created=f"2026-01-01T00:{index // 60 % 60:02d}:{index % 60:02d}Z")
        for index in reversed(range(OVERVIEW_PENDING_PODS * 3))
    ]
    contents.events = [event(index, f"2026-01-02T00:{index // 60 % 60:02d}:{index % 60:02d}Z") for index in range(200)]

    overview = monitoring.overview("demo")

    assert overview.nodesTotal == OVERVIEW_NODES + 30 and len(overview.nodes) == OVERVIEW_NODES
    assert overview.podsByPhase == {"Pending": OVERVIEW_PENDING_PODS * 3}
    assert [entry.name for entry in overview.pendingPods] == [
        f"p-{index:04d}" for index in range(OVERVIEW_PENDING_PODS)
    ]
    assert overview.warningEventsTotal == 200 and len(overview.events) == OVERVIEW_EVENTS
    assert [entry.message for entry in overview.events][:2] == ["event 199", "event 198"]


def test_pending_pods_say_why_and_are_counted_by_reason(monitoring, reads):
    reads.contents(EKS_NAME).pods = [
        pod("big", None, phase="Pending", reason="Unschedulable"),
        pod("bigger", None, phase="Pending", reason="Unschedulable"),
        pod("pulling", "n-1", phase="Pending", reason="ImagePullBackOff"),
        pod("silent", None, phase="Pending"),
    ]

    overview = monitoring.overview("demo")

    assert overview.pendingByReason == {"Unschedulable": 2, "ImagePullBackOff": 1, "Pending": 1}
    reasons = {entry.name: (entry.reason, entry.message) for entry in overview.pendingPods}
    assert reasons["big"] == ("Unschedulable", "Unschedulable says why")
    assert reasons["silent"] == ("Pending", None)


def test_events_without_a_time_come_last(monitoring, reads):
    reads.contents(EKS_NAME).events = [event(0, None), event(1, "2026-01-01T00:00:00Z")]

    assert [entry.message for entry in monitoring.overview("demo").events] == ["event 1", "event 0"]


def test_overview_links_the_observability_dashboards_only_when_the_add_on_is_installed(monitoring, eks):
    assert monitoring.overview("demo").observability is None

    eks.add_addon(EKS_NAME, OBSERVABILITY_ADDON)
    links = monitoring.overview("demo").observability

    assert links is not None and links.addonStatus == "ACTIVE"
    assert links.grafana.startswith("https://us-west-2.console.aws.amazon.com/grafana/")
    assert links.hyperPodConsole.endswith("#/cluster-management/hp-cluster-demo")
    assert (links.prometheusWorkspace, links.prometheusEndpoint) == (None, None), "installed without a workspace"
    assert "Grafana is yours to bring" in links.bringYourOwn


def test_overview_names_the_workspace_the_add_on_writes_to_and_what_the_person_brings(monitoring, eks):
    endpoint = "https://aps-workspaces.us-west-2.amazonaws.com/workspaces/ws-1234"
    workspace = {"prometheusEndpoint": endpoint, "arn": "arn:aws:aps:us-west-2:1:workspace/ws-1234"}
    configuration = json.dumps({"ampWorkspace": workspace})
    eks.create_addon(EKS_NAME, OBSERVABILITY_ADDON, "v1.1.0-eksbuild.1", None, {}, configuration=configuration)

    links = monitoring.overview("demo").observability

    assert links is not None
    assert (links.prometheusWorkspace, links.prometheusEndpoint) == ("ws-1234", endpoint)
    assert links.prometheus.endswith("#/workspaces/workspace/ws-1234")
    assert f"Prometheus data source at {endpoint} with SigV4 authentication" in links.bringYourOwn


def test_overview_of_a_cluster_without_an_active_eks_control_plane_is_refused(monitoring, eks):
    eks.add_cluster(EKS_NAME, status="CREATING", endpoint=None)

    with pytest.raises(ClusterNotReadyError, match="no reachable EKS control plane"):
        monitoring.overview("demo")


def test_pods_page_through_every_pod_once_with_filters(monitoring, reads):
    reads.contents(EKS_NAME).pods = [
        pod(f"p-{index:03d}", f"n-{index % 3}", phase="Pending" if index % 5 == 0 else "Running") for index in range(53)
    ]

    seen, token = [], None
    while True:
        page = monitoring.pods("demo", limit=10, token=token)
        seen.extend(entry.name for entry in page.pods)
        if not (token := page.continue_):
            break
    pending = monitoring.pods("demo", limit=100, phase="Pending", node="n-0")

    assert seen == sorted(f"p-{index:03d}" for index in range(53))
    assert {entry.name for entry in pending.pods} == {f"p-{index:03d}" for index in range(0, 53, 15)}


def test_a_foreign_pods_token_is_refused(monitoring):
    with pytest.raises(InvalidRequestError, match="continue token"):
        monitoring.pods("demo", token="not-ours")


def test_capped_keeps_the_first_items_by_key_holding_at_most_twice_its_cap():
    capped: Capped[int] = Capped(5, lambda item: item)
    for item in reversed(range(1000)):
        capped.add(item)
        assert len(capped._items) < 10

    assert capped.items() == [0, 1, 2, 3, 4]


def test_the_newest_warnings_merge_hyperpods_warn_and_error_events_with_kubernetes(monitoring, reads, activity):
    reads.contents(EKS_NAME).events = [event(0, "2026-01-01T00:00:00Z"), event(1, "2026-01-01T00:00:02Z")]
    activity.clusters["hp-cluster-demo"] = [
        ClusterEventView(
            source="hyperpod",
            eventId=f"e-{level}",
            time=datetime(2026, 1, 1, 0, 0, second, tzinfo=UTC),
            resourceType="Instance",
            level=level,
            description=level,
            nodeId="i-0abc",
            instanceGroup="workers",
        )
        for second, level in ((1, "Error"), (3, "Info"), (4, "Warn"))
    ]

    overview = monitoring.overview("demo")

    assert [(entry.source, entry.message) for entry in overview.events] == [
        ("hyperpod", "Warn"),
        ("kubernetes", "event 1"),
        ("hyperpod", "Error"),
        ("kubernetes", "event 0"),
    ]
    assert overview.events[0].object == "Instance/i-0abc" and overview.events[0].at == "2026-01-01T00:00:04Z"
    assert overview.warningEventsTotal == 2
