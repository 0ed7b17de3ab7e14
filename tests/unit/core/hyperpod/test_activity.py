"""The cluster's events, HyperPod's and Kubernetes' Warning events merged: newest first, paged across both sources
with nothing shown twice or skipped, filtered by group, node and operation, and a cluster before stage 4 refused."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from controlplane.core.hyperpod.activity import HyperPodActivityService
from controlplane.core.paging import encode_token
from controlplane.core.ports.hyperpod_activity import EventFilter
from controlplane.core.ports.kubernetes import ClusterEvent, KubernetesNode
from controlplane.models.errors import ClusterNotReadyError, InvalidRequestError
from controlplane.models.hyperpod_activity import ClusterEventView
from controlplane.models.status import GROUP_LABEL
from tests.fakes.hyperpod_activity import InMemoryHyperPodActivity
from tests.fakes.monitoring import InMemoryClusterReads
from tests.unit.core.hyperpod.world import EKS_NAME, World


def hyperpod(second: int, node: str = "i-0aaa", group: str = "gpu", operation: str | None = None):
    return ClusterEventView(
        source="hyperpod", eventId=f"hp-{second}", time=datetime(2026, 1, 1, 0, 0, second, tzinfo=UTC),
        resourceType="Instance", level="Info", nodeId=node, instanceGroup=group, operationId=operation,
    )  # fmt: skip


def kubernetes(second: int, node: str = "hyperpod-i-0aaa") -> ClusterEvent:
    at = f"2026-01-01T00:00:{second:02d}Z"
    return ClusterEvent("team", f"Node/{node}", "NodeNotReady", f"k8s {second}", at, 2, f"uid-{second}", node)


@pytest.fixture
def world() -> World:
    world = World()
    world.register()
    world.eks.add_cluster(EKS_NAME)
    return world


@pytest.fixture
def sources() -> tuple[InMemoryHyperPodActivity, InMemoryClusterReads]:
    return InMemoryHyperPodActivity(), InMemoryClusterReads(page_size=2)


def service(world: World, sources) -> HyperPodActivityService:
    activity, reads = sources
    return HyperPodActivityService(world.clusters, lambda region: activity, lambda region: world.eks, reads)


def ids(listed) -> list[str]:
    return [event.eventId for event in listed.events]


def test_both_sources_merge_newest_first_with_their_source(world, sources):
    activity, reads = sources
    activity.clusters["hp-cluster-demo"] = [hyperpod(1), hyperpod(4)]
    reads.contents(EKS_NAME).events = [kubernetes(3), kubernetes(5), kubernetes(2)]

    listed = service(world, sources).events("demo", EventFilter(), 10, None)

    assert ids(listed) == ["uid-5", "hp-4", "uid-3", "uid-2", "hp-1"] and listed.continue_ is None
    row = listed.events[0]
    assert (row.source, row.nodeId, row.object, row.reason, row.count) == (
        "kubernetes",
        "i-0aaa",
        "Node/hyperpod-i-0aaa",
        "NodeNotReady",
        2,
    )


def test_pages_across_both_sources_show_each_event_once_even_at_the_same_time(world, sources):
    activity, reads = sources
    activity.clusters["hp-cluster-demo"] = [hyperpod(second) for second in (1, 3, 3, 6)]
    activity.clusters["hp-cluster-demo"][2] = activity.clusters["hp-cluster-demo"][2].model_copy(
        update={"eventId": "hp-3b"}
    )
    reads.contents(EKS_NAME).events = [kubernetes(second) for second in (3, 5, 2, 7)]
    shown, token, pages = [], None, 0
    while True:
        listed = service(world, sources).events("demo", EventFilter(), 3, token)
        shown += ids(listed)
        pages += 1
        token = listed.continue_
        if token is None:
            break

    assert shown == ["uid-7", "hp-6", "uid-5", "hp-3", "hp-3b", "uid-3", "uid-2", "hp-1"] and pages == 3


def test_a_page_reads_hyperpods_events_lazily(world, sources):
    activity, _ = sources
    activity.clusters["hp-cluster-demo"] = [hyperpod(second) for second in range(30)]

    service(world, sources).events("demo", EventFilter(), 5, None)

    assert activity.read == 6


def test_filters_by_node_and_group_apply_to_both_sources(world, sources):
    activity, reads = sources
    activity.clusters["hp-cluster-demo"] = [hyperpod(1), hyperpod(2, node="i-0bbb", group="cpu")]
    reads.contents(EKS_NAME).events = [kubernetes(3), kubernetes(4, node="hyperpod-i-0bbb")]
    reads.contents(EKS_NAME).nodes = [
        KubernetesNode(f"hyperpod-{node}", True, True, {GROUP_LABEL: group}, {}, {})
        for node, group in (("i-0aaa", "gpu"), ("i-0bbb", "cpu"))
    ]
    merged = service(world, sources)

    assert ids(merged.events("demo", EventFilter(node_id="i-0bbb"), 10, None)) == ["uid-4", "hp-2"]
    by_group = merged.events("demo", EventFilter(instance_group="gpu"), 10, None)
    assert ids(by_group) == ["uid-3", "hp-1"] and by_group.events[0].instanceGroup == "gpu"


def test_a_kubernetes_event_without_a_readable_time_is_left_out(world, sources):
    _, reads = sources
    timeless = [
        ClusterEvent("team", "Pod/p", "BackOff", "no time", None, 1, "uid-none"),
        ClusterEvent("team", "Pod/p", "BackOff", "bad time", "yesterday", 1, "uid-bad"),
    ]
    reads.contents(EKS_NAME).events = [*timeless, kubernetes(3)]

    assert ids(service(world, sources).events("demo", EventFilter(), 10, None)) == ["uid-3"]


def test_an_operation_filter_keeps_hyperpods_events_alone(world, sources):
    activity, reads = sources
    activity.clusters["hp-cluster-demo"] = [hyperpod(1, operation="op"), hyperpod(2)]
    reads.contents(EKS_NAME).events = [kubernetes(3)]

    assert ids(service(world, sources).events("demo", EventFilter(operation_id="op"), 10, None)) == ["hp-1"]


@pytest.mark.parametrize("token", ["not-a-token", encode_token({"sagemaker": "x"}), encode_token([1, 2, 3])])
def test_a_token_not_ours_is_a_400(world, sources, token):
    with pytest.raises(InvalidRequestError, match="continue token"):
        service(world, sources).events("demo", EventFilter(), 10, token)


def test_a_cluster_before_stage_4_has_no_cluster_events(sources):
    world = World()
    world.register(stages=("eks",))
    with pytest.raises(ClusterNotReadyError, match="finish stage 4"):
        service(world, sources).events("demo", EventFilter(), 10, None)
