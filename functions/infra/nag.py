"""cdk-nag v3 acknowledgements: finding-specific, each with its reason.

cdk-nag reports one AwsSolutions-IAM5 finding per wildcard resource, named after the resource as it
flattens it (`Resource::arn:<AWS::Partition>:ec2:*:<AWS::AccountId>:vpc/*`). `flatten` reproduces
that naming so that each grant acknowledges exactly the findings its own resources cause.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from aws_cdk import Acknowledgment, Stack, Validations
from constructs import IConstruct

MIN_REASON_LENGTH = 30


def flatten(value: Any) -> str:
    """cdk-nag's `flattenCfnReference`: CloudFormation intrinsics as one string."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value.replace("${", "<").replace("}", ">")
    if isinstance(value, dict):
        if "Fn::Join" in value:
            delimiter, items = value["Fn::Join"]
            return delimiter.join(flatten(item) for item in items)
        if "Fn::Sub" in value:
            return flatten(value["Fn::Sub"])
        if "Fn::GetAtt" in value:
            resource, attribute = value["Fn::GetAtt"]
            return f"<{flatten(resource)}.{flatten(attribute)}>"
        if "Fn::ImportValue" in value:
            return flatten(value["Fn::ImportValue"])
        if "Ref" in value:
            return f"<{flatten(value['Ref'])}>"
    return json.dumps(value, separators=(",", ":"))


class Acknowledgements:
    """Collects reasons per (construct, finding) and records each finding once, reasons joined."""

    def __init__(self) -> None:
        self._reasons: dict[tuple[str, str], list[str]] = defaultdict(list)
        self._constructs: dict[str, IConstruct] = {}

    def add(self, construct: IConstruct, finding: str, reason: str) -> None:
        if len(reason) < MIN_REASON_LENGTH:
            raise ValueError(f"Acknowledging {finding} needs a reason of {MIN_REASON_LENGTH}+ characters.")
        path = construct.node.path
        self._constructs[path] = construct
        if reason not in self._reasons[(path, finding)]:
            self._reasons[(path, finding)].append(reason)

    def wildcard_resources(
        self, construct: IConstruct, actions: Iterable[str], resources: Iterable[str], reason: str
    ) -> None:
        """AwsSolutions-IAM5 for each resource of one statement that contains a wildcard.

        The reason is prefixed by the statement's actions (`eks:DescribeCluster: ...`): several statements of one role
        may share a wildcard resource, and their joined reasons must each say which statement they are about."""
        stack = Stack.of(construct)
        stated = f"{', '.join(sorted(actions))}: {reason}"
        for resource in resources:
            flat = flatten(stack.resolve(resource))
            if "*" in flat:
                self.add(construct, f"AwsSolutions-IAM5[Resource::{flat}]", stated)

    def apply(self) -> None:
        for (path, finding), reasons in sorted(self._reasons.items()):
            Validations.of(self._constructs[path]).acknowledge(
                Acknowledgment(id=finding, reason="; ".join(reasons) + ".")
            )
