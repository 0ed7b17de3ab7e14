"""The EventBridge wire shapes of HyperPod's events: parsed into the core's event, keyed so that copies share a key,
and matched by the same patterns the rules are made of."""

from __future__ import annotations

import json

from moto.events.models import EventPattern

from controlplane.adapters.aws.eventbridge import PATTERNS, parse

CLUSTER_ARN = "arn:aws:sagemaker:us-west-2:123456789012:cluster/abcdef123456"


def state_change(event_id: str, status: str = "InService") -> dict:
    return {
        "id": event_id,
        "source": "aws.sagemaker",
        "detail-type": "SageMaker HyperPod Cluster State Change",
        "time": "2026-12-03T06:00:00Z",
        "region": "us-west-2",
        "resources": [CLUSTER_ARN],
        "detail": {"ClusterArn": CLUSTER_ARN, "ClusterName": "hp-cluster-demo", "ClusterStatus": status},
    }


def test_two_copies_of_one_state_change_share_a_key_without_a_hyperpod_event_id():
    first, copy = parse(state_change("eventbridge-id-1")), parse(state_change("eventbridge-id-2"))
    assert first.eventId == copy.eventId
    assert parse(state_change("eventbridge-id-3", "Updating")).eventId != first.eventId


def test_a_cluster_event_is_keyed_by_its_event_id_and_timed_by_its_event_time():
    event = {
        "source": "aws.sagemaker",
        "detail-type": "SageMaker HyperPod Cluster Event",
        "region": "us-west-2",
        "detail": {
            "EventDetails": {
                "EventId": "e-1",
                "ClusterName": "hp-cluster-demo",
                "EventTime": 1796277600000,
                "EventLevel": "Error",
                "ResourceType": "Instance",
                "InstanceId": "i-0123456789abcdef0",
                "Description": "Instance failed its deep health check.",
            }
        },
    }
    parsed = parse(event)
    assert (parsed.eventId, parsed.kind, parsed.level, parsed.instanceId) == (
        "e-1",
        "ClusterEvent",
        "Error",
        "i-0123456789abcdef0",
    )
    assert matches("ClusterEvent", event)
    info = {**event, "detail": {"EventDetails": {**event["detail"]["EventDetails"], "EventLevel": "Info"}}}
    assert not matches("ClusterEvent", info)


def test_an_instance_s_info_or_warn_cluster_event_has_its_own_rule_and_a_group_s_has_none():
    event = {
        "source": "aws.sagemaker",
        "detail-type": "SageMaker HyperPod Cluster Event",
        "region": "us-west-2",
        "detail": {
            "EventDetails": {
                "EventId": "e-2",
                "ClusterName": "hp-cluster-demo",
                "EventTime": 1796277600000,
                "EventLevel": "Info",
                "ResourceType": "Instance",
                "InstanceId": "i-0123456789abcdef0",
                "Description": "Instance i-0123456789abcdef0 rebooted.",
            }
        },
    }
    assert (parse(event).kind, parse(event).level) == ("ClusterEvent", "Info")
    details = event["detail"]["EventDetails"]
    warn = {**event, "detail": {"EventDetails": {**details, "EventLevel": "Warn"}}}
    error = {**event, "detail": {"EventDetails": {**details, "EventLevel": "Error"}}}
    group = {**event, "detail": {"EventDetails": {**details, "ResourceType": "InstanceGroup"}}}
    assert [name for name in PATTERNS if matches(name, event)] == ["InstanceEvent"]
    assert [name for name in PATTERNS if matches(name, warn)] == ["InstanceEvent"]
    assert [name for name in PATTERNS if matches(name, error)] == ["ClusterEvent"]
    assert [name for name in PATTERNS if matches(name, group)] == []


def test_the_state_change_rule_matches_state_changes_only():
    assert matches("ClusterStateChange", state_change("x"))
    assert not matches("NodeHealth", state_change("x"))


def matches(name: str, event: dict) -> bool:
    return bool(EventPattern.load(json.dumps(PATTERNS[name])).matches_event(event))
