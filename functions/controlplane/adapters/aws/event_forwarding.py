"""EventBridge on one Region's default bus: the rule that forwards HyperPod's events to the home Region's bus."""

from __future__ import annotations

import json

from botocore.exceptions import ClientError

from controlplane.adapters.aws.eventbridge import FORWARDED_PATTERN
from controlplane.adapters.aws.session import client, error_code, tag_dict, tag_list
from controlplane.core.ports.events import ForwardingRule

TARGET_ID = "home-bus"


class AwsEventForwarding:
    def __init__(self, region: str) -> None:
        self._region = region

    def find(self, name: str) -> ForwardingRule | None:
        events = client("events", self._region)
        try:
            rule = events.describe_rule(Name=name)
        except ClientError as error:
            if error_code(error) == "ResourceNotFoundException":
                return None
            raise
        targets = events.list_targets_by_rule(Rule=name)["Targets"]
        tags = events.list_tags_for_resource(ResourceARN=rule["Arn"])["Tags"]
        return ForwardingRule(name, tuple(target["Arn"] for target in targets), tag_dict(tags))

    def put(self, name: str, bus_arn: str, role_arn: str, tags: dict[str, str]) -> None:
        events = client("events", self._region)
        events.put_rule(
            Name=name,
            EventPattern=json.dumps(FORWARDED_PATTERN),
            State="ENABLED",
            Description="InstantStart: HyperPod events of this Region to the control plane's Region",
            Tags=tag_list(tags),
        )
        events.put_targets(Rule=name, Targets=[{"Id": TARGET_ID, "Arn": bus_arn, "RoleArn": role_arn}])

    def delete(self, name: str) -> None:
        events = client("events", self._region)
        try:
            targets = events.list_targets_by_rule(Rule=name)["Targets"]
            if targets:
                events.remove_targets(Rule=name, Ids=[target["Id"] for target in targets])
            events.delete_rule(Name=name)
        except ClientError as error:
            if error_code(error) != "ResourceNotFoundException":
                raise
