"""HyperPodActivityService against a fake: the cluster's HyperPod events, a page with its filters passed through, and
a cluster before stage 4 refused with what to finish."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from controlplane.core.hyperpod.activity import HyperPodActivityService
from controlplane.core.paging import Page
from controlplane.core.ports.hyperpod_activity import EventFilter
from controlplane.models.errors import ClusterNotReadyError
from controlplane.models.hyperpod_activity import ClusterEventView
from tests.unit.core.hyperpod.world import World

EVENT = ClusterEventView(eventId="e-1", time=datetime(2026, 1, 1, tzinfo=UTC), resourceType="Instance", nodeId="i-1")


class FakeActivity:
    def __init__(self) -> None:
        self.asked: list[tuple[str, EventFilter, int, str | None]] = []

    def event_page(self, cluster_name: str, filters: EventFilter, limit: int, token: str | None = None):
        self.asked.append((cluster_name, filters, limit, token))
        return Page([EVENT], "next")


def test_a_page_of_events_passes_the_filters_and_the_token_through():
    world, activity = World(), FakeActivity()
    world.register()
    filters = EventFilter(instance_group="gpu", node_id="i-1", operation_id=None)
    listed = HyperPodActivityService(world.clusters, lambda region: activity).events("demo", filters, 10, "t")
    assert (listed.events, listed.continue_) == ([EVENT], "next")
    assert activity.asked == [("hp-cluster-demo", filters, 10, "t")]


def test_a_cluster_before_stage_4_has_no_hyperpod_events():
    world = World()
    world.register(stages=("eks",))
    with pytest.raises(ClusterNotReadyError, match="finish stage 4"):
        HyperPodActivityService(world.clusters, lambda region: FakeActivity()).events("demo", EventFilter(), 10, None)
