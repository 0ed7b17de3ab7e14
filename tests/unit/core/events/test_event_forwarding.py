"""EventForwardingSteps against in-memory fakes: a cluster outside the deployment's Region gets its Region's one
forwarding rule (to the home bus, as the forwarding role), shared by the Region's clusters and removed with the
last of them; the home Region needs none, and a rule of the name that is not this deployment's is left alone."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from controlplane.core.events.forwarding import EventForwardingSteps
from controlplane.core.naming import DEPLOYMENT_REGION_KEY, MANAGED_BY_KEY
from controlplane.models.clusters import ClusterStatus
from controlplane.models.errors import ForeignResourceError
from controlplane.models.workflow import WorkflowState
from tests.fakes.account import ACCOUNT_ID
from tests.fakes.deployment import DEPLOYMENT
from tests.fakes.events import InMemoryEventForwarding
from tests.fakes.persistence import InMemoryClusterRegistry
from tests.unit.records import cluster_record

AT = datetime(2026, 12, 4, tzinfo=UTC)
ROLE = f"arn:aws:iam::{ACCOUNT_ID}:role/instantstart-event-forwarding"
RULE = "instantstart-hyperpod-events-to-us-east-1"
HOME_BUS = f"arn:aws:events:us-east-1:{ACCOUNT_ID}:event-bus/default"


class Regions:
    def __init__(self, *records) -> None:
        self.buses: dict[str, InMemoryEventForwarding] = {}
        self.registry = InMemoryClusterRegistry(*records)
        self.steps = EventForwardingSteps(self.bus, self.registry, DEPLOYMENT, ROLE)

    def bus(self, region: str) -> InMemoryEventForwarding:
        return self.buses.setdefault(region, InMemoryEventForwarding())


def state(tag: str = "demo", region: str = "us-west-2") -> WorkflowState:
    return WorkflowState(
        operationId="op-1",
        clusterTag=tag,
        incarnation="inc-demo",
        region=region,
        accountId=ACCOUNT_ID,
        eksClusterName=f"eks-cluster-{tag}",
        hyperPodClusterName=f"hp-cluster-{tag}",
        imported=False,
    )


def test_a_cluster_in_another_region_gets_that_region_s_rule_to_the_home_bus_once():
    regions = Regions(cluster_record(at=AT))

    regions.steps.ensure_event_forwarding(state())
    regions.steps.ensure_event_forwarding(state())

    rule = regions.bus("us-west-2").rules[RULE]
    assert (rule.targets, regions.bus("us-west-2").roles[RULE]) == ((HOME_BUS,), ROLE)
    assert rule.tags == {MANAGED_BY_KEY: "instantstart", DEPLOYMENT_REGION_KEY: "us-east-1"}


def test_the_home_region_needs_no_rule():
    regions = Regions(cluster_record(at=AT, region="us-east-1"))

    outcome = regions.steps.ensure_event_forwarding(state(region="us-east-1"))
    regions.steps.remove_event_forwarding(state(region="us-east-1"))

    assert "deployment's Region" in outcome["forwarding"]
    assert regions.buses == {}


def test_the_rule_stays_while_another_cluster_lives_in_its_region_and_goes_with_the_last():
    regions = Regions(cluster_record(at=AT), cluster_record(at=AT, clusterTag="other"))
    regions.steps.ensure_event_forwarding(state())

    kept = regions.steps.remove_event_forwarding(state())
    assert RULE in regions.bus("us-west-2").rules and "other" in kept["forwarding"]

    regions.registry.items.pop("demo")
    regions.steps.remove_event_forwarding(state("other"))
    assert regions.bus("us-west-2").rules == {}
    assert regions.steps.remove_event_forwarding(state("other")) == {"forwarding": "already gone"}


def test_clusters_being_deleted_or_in_other_regions_do_not_keep_the_rule():
    regions = Regions(
        cluster_record(at=AT),
        cluster_record(at=AT, clusterTag="leaving", status=ClusterStatus.DELETING),
        cluster_record(at=AT, clusterTag="elsewhere", region="eu-west-1"),
    )
    regions.steps.ensure_event_forwarding(state())

    regions.steps.remove_event_forwarding(state())

    assert regions.bus("us-west-2").rules == {}


def test_a_rule_of_that_name_from_another_deployment_is_refused_and_never_removed():
    regions = Regions(cluster_record(at=AT))
    foreign = {MANAGED_BY_KEY: "someoneelse", DEPLOYMENT_REGION_KEY: "us-east-1"}
    regions.bus("us-west-2").put(RULE, "arn:aws:events:us-east-1:999999999999:event-bus/default", ROLE, foreign)

    with pytest.raises(ForeignResourceError, match="someoneelse"):
        regions.steps.ensure_event_forwarding(state())
    regions.steps.remove_event_forwarding(state())

    assert RULE in regions.bus("us-west-2").rules
