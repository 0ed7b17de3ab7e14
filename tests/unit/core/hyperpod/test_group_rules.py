"""The instance-group rules: every refusal's condition, and the explicit diff per field."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime

import pytest

from controlplane.core.hyperpod.group_rules import (
    InstanceGroupNotFoundError,
    changeable_fields,
    explicit_diff,
    refuse_adopted_hyperpod,
    refuse_existing_group,
    require_group,
    supports_deep_health_checks,
)
from controlplane.core.ports.hyperpod import HyperPodCluster, InstanceGroup, Taint
from controlplane.models.errors import ClusterExistsError, ForeignResourceError, InvalidRequestError
from tests.unit.records import cluster_record

NOW = datetime(2026, 12, 2, tzinfo=UTC)

GPU = InstanceGroup(
    name="gpu",
    instance_type="ml.g6.4xlarge",
    status="InService",
    current_count=2,
    target_count=2,
    min_count=1,
    deep_health_checks=True,
    labels={"team": "a"},
)
CPU = InstanceGroup(
    name="cpu",
    instance_type="ml.m5.xlarge",
    status="InService",
    current_count=1,
    target_count=1,
    taints=(Taint("dedicated", "cpu", "NoSchedule"),),
)
P5 = InstanceGroup(
    name="p5",
    instance_type="ml.p5.48xlarge",
    status="InService",
    current_count=1,
    target_count=1,
    network_interface="efa-only",
)
CLUSTER = HyperPodCluster(
    name="hp-cluster-demo", arn="arn", status="InService", failure_message=None, groups=(GPU, CPU)
)


def test_require_group_returns_the_live_group():
    assert require_group(CLUSTER, "cpu") is CPU


def test_require_group_refuses_an_unknown_name_and_lists_the_groups():
    with pytest.raises(InstanceGroupNotFoundError, match="its groups are: gpu, cpu") as error:
        require_group(CLUSTER, "tpu")
    assert error.value.details == {"instanceGroups": ["gpu", "cpu"]}


def test_require_group_on_a_cluster_without_groups_says_none():
    empty = HyperPodCluster(name="hp", arn="arn", status="InService", failure_message=None, groups=())
    with pytest.raises(InstanceGroupNotFoundError, match="its groups are: none"):
        require_group(empty, "gpu")


def test_adding_a_group_under_an_existing_name_is_refused():
    with pytest.raises(ClusterExistsError, match="gpu already exists in hp-cluster-demo"):
        refuse_existing_group(CLUSTER, "gpu")
    refuse_existing_group(CLUSTER, "spot")


def test_an_adopted_hyperpod_cluster_is_not_changed():
    with pytest.raises(ForeignResourceError, match="adopted by import"):
        refuse_adopted_hyperpod(
            cluster_record(at=NOW, imported=True, adopted=["eks", "hyperpod"], hyperPodClusterName="theirs")
        )
    refuse_adopted_hyperpod(cluster_record(at=NOW, imported=True, adopted=["eks"]))
    refuse_adopted_hyperpod(cluster_record(at=NOW))


def test_deep_health_checks_are_supported_only_by_accelerated_types():
    assert supports_deep_health_checks("ml.g6.4xlarge")
    assert not supports_deep_health_checks("ml.m5.xlarge")
    assert not supports_deep_health_checks("ml.unknown.xlarge")
    assert not supports_deep_health_checks(None)


def test_changeable_fields_use_the_update_request_names():
    assert changeable_fields(CPU) == {
        "instanceCount": 1,
        "minInstanceCount": None,
        "labels": {},
        "taints": [{"key": "dedicated", "value": "cpu", "effect": "NoSchedule"}],
        "deepHealthChecks": False,
        "instanceType": "ml.m5.xlarge",
        "networkInterface": None,
    }


def test_diff_says_unchanged_for_fields_equal_to_the_live_value_and_updated_for_the_others():
    outcomes = explicit_diff(GPU, {"instanceCount": 2, "labels": {"team": "b"}, "minInstanceCount": 1})
    assert outcomes == {"instanceCount": "unchanged", "labels": "updated", "minInstanceCount": "unchanged"}


def test_diff_covers_only_the_fields_sent():
    assert explicit_diff(GPU, {"instanceCount": 5}) == {"instanceCount": "updated"}


@pytest.mark.parametrize(
    ("group", "sent", "field"),
    [
        (GPU, {"instanceType": "ml.g6.8xlarge"}, "instanceType"),
        (P5, {"networkInterface": "efa"}, "networkInterface"),
        (GPU, {"networkInterface": "efa"}, "networkInterface"),
    ],
)
def test_changing_an_immutable_field_is_refused_with_the_live_value(group, sent, field):
    with pytest.raises(InvalidRequestError, match=f"{field} of instance group {group.name} is immutable") as error:
        explicit_diff(group, sent)
    assert error.value.details == {field: changeable_fields(group)[field]}


def test_an_immutable_field_sent_with_its_live_value_is_unchanged():
    assert explicit_diff(P5, {"networkInterface": "efa-only", "instanceType": "ml.p5.48xlarge"}) == {
        "networkInterface": "unchanged",
        "instanceType": "unchanged",
    }


def test_scaling_below_the_live_minimum_is_refused():
    with pytest.raises(InvalidRequestError, match="needs at least 1 instances") as error:
        explicit_diff(GPU, {"instanceCount": 0})
    assert error.value.details == {"minInstanceCount": 1}


def test_raising_the_minimum_above_the_live_count_is_refused():
    with pytest.raises(InvalidRequestError, match="needs at least 3 instances"):
        explicit_diff(GPU, {"minInstanceCount": 3})


def test_scaling_below_the_minimum_is_allowed_when_the_same_request_lowers_it():
    assert explicit_diff(GPU, {"instanceCount": 0, "minInstanceCount": 0}) == {
        "instanceCount": "updated",
        "minInstanceCount": "updated",
    }


def test_a_group_without_minimum_scales_to_zero():
    assert explicit_diff(CPU, {"instanceCount": 0}) == {"instanceCount": "updated"}


def test_taints_on_a_group_with_deep_health_checks_are_refused():
    with pytest.raises(InvalidRequestError, match="custom taints and deep health checks"):
        explicit_diff(GPU, {"taints": [{"key": "gpu", "value": None, "effect": "NoSchedule"}]})


def test_deep_health_checks_on_a_group_with_taints_are_refused():
    with pytest.raises(InvalidRequestError, match="custom taints and deep health checks"):
        explicit_diff(replace(CPU, instance_type="ml.g6.4xlarge"), {"deepHealthChecks": True})


def test_taints_are_allowed_when_the_same_request_turns_deep_health_checks_off():
    taints = [{"key": "gpu", "value": None, "effect": "NoSchedule"}]
    assert explicit_diff(GPU, {"taints": taints, "deepHealthChecks": False}) == {
        "taints": "updated",
        "deepHealthChecks": "updated",
    }


def test_deep_health_checks_on_a_type_without_them_are_refused():
    without_taints = InstanceGroup(
        name="cpu", instance_type="ml.m5.xlarge", status="InService", current_count=1, target_count=1
    )
    with pytest.raises(InvalidRequestError, match=r"ml\.m5\.xlarge does not support deep health checks"):
        explicit_diff(without_taints, {"deepHealthChecks": True})


def test_deep_health_checks_already_on_are_not_rechecked_against_the_type():
    already_on = InstanceGroup(
        name="cpu",
        instance_type="ml.m5.xlarge",
        status="InService",
        current_count=1,
        target_count=1,
        deep_health_checks=True,
    )
    assert explicit_diff(already_on, {"deepHealthChecks": True}) == {"deepHealthChecks": "unchanged"}
