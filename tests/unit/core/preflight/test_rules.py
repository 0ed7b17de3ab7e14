"""The pre-flight rules: quota, addresses and capacity, each pass / warn / fail with the numbers and the fix."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from controlplane.core.ports.account import TrainingPlan
from controlplane.core.ports.quotas import Quota
from controlplane.core.preflight.rules import (
    NEW_COMPUTE_SUBNET_ADDRESSES,
    addresses_check,
    addresses_per_instance,
    capacity_checks,
    quota_check,
    refuse_failures,
)
from controlplane.models.errors import PreflightFailedError

G6 = Quota("sagemaker", "L-1234ABCD", "ml.g6.4xlarge for cluster usage", 2, True)
NOW = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)


def test_a_request_beyond_the_quota_fails_naming_the_code_and_where_to_raise_it():
    check = quota_check(G6.name, G6, used=0, need=3, region="us-west-2")
    assert (check.status, check.have, check.need, check.limit, check.quotaCode) == ("fail", 2, 3, 2, "L-1234ABCD")
    assert "servicequotas/home/services/sagemaker/quotas/L-1234ABCD" in check.fix
    assert "DesiredValue=3" in check.fix


def test_usage_by_other_clusters_counts_against_the_quota():
    assert quota_check(G6.name, G6, used=1, need=2, region="us-west-2").status == "fail"
    assert quota_check(G6.name, G6, used=1, need=1, region="us-west-2").status == "warn"


def test_a_request_within_the_quota_but_close_to_it_warns():
    quota = Quota("vpc", "L-F678F1CE", "VPCs per Region", 5, True)
    assert quota_check(quota.name, quota, used=4, need=1, region="us-west-2").status == "warn"
    assert quota_check(quota.name, quota, used=1, need=1, region="us-west-2").status == "pass"


def test_a_quota_the_account_does_not_report_warns_and_never_blocks():
    check = quota_check("ml.x.large for cluster usage", None, used=0, need=1, region="us-west-2")
    assert check.status == "warn"
    refuse_failures([check])


def test_efa_only_interfaces_take_one_address_per_instance_and_efa_ones_one_per_card():
    assert addresses_per_instance("ml.p5.48xlarge", "efa-only") == 1
    assert addresses_per_instance("ml.p5.48xlarge", "efa") == 32
    assert addresses_per_instance("ml.g6.4xlarge", None) == 1


def test_600_instances_in_a_24_fail_suggesting_a_dedicated_subnet():
    check = addresses_check("subnet-1", 251, 600, "ml.g6.4xlarge", None, dedicated=False)
    assert (check.status, check.have, check.need) == ("fail", 251, 600)
    assert "dedicatedSubnet=true" in check.fix


def test_an_efa_type_short_of_addresses_is_offered_efa_only():
    check = addresses_check("subnet-1", NEW_COMPUTE_SUBNET_ADDRESSES, 200, "ml.p5.48xlarge", "efa", dedicated=True)
    assert check.status == "fail" and check.need == 6400
    assert "networkInterface=efa-only: 200 addresses instead of 6400" in check.fix
    assert "dedicatedSubnet" not in check.fix


def test_a_training_plan_with_too_little_left_fails_and_an_ended_one_fails_its_window():
    plan = TrainingPlan(
        "arn:plan", "p", "Active", "ml.p5.48xlarge", 4, "us-west-2a", 1, NOW - timedelta(days=2), NOW - timedelta(1)
    )
    capacity, window = capacity_checks(plan, 2, NOW)
    assert (capacity.status, capacity.have, capacity.need) == ("fail", 1, 2)
    assert window.status == "fail"


def test_a_training_plan_that_has_not_started_warns():
    plan = TrainingPlan("arn:plan", "p", "Scheduled", None, 4, None, 4, NOW + timedelta(hours=3), None)
    capacity, window = capacity_checks(plan, 2, NOW)
    assert (capacity.status, window.status) == ("pass", "warn")


def test_a_failing_check_refuses_with_every_check_in_the_details():
    failing = quota_check(G6.name, G6, used=0, need=3, region="us-west-2")
    passing = addresses_check("subnet-1", 251, 3, "ml.g6.4xlarge", None, dedicated=False)
    with pytest.raises(PreflightFailedError) as refused:
        refuse_failures([passing, failing])
    assert "L-1234ABCD" in refused.value.message and "ml.g6.4xlarge for cluster usage" in refused.value.message
    assert [c["status"] for c in refused.value.details["checks"]] == ["pass", "fail"]
