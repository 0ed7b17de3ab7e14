"""moto's IAM with AWS's managed policies loaded once per process: the product attaches AWS managed policies, so the
sandbox has moto load them, and moto parses their 9,000-entry data file again for every IAM backend it creates
(a dozen per sandbox, one per partition and account seen): 1.4 s of every sandbox's start. The data is parsed and
each policy's fields prepared once; every backend still gets policies of its own, since attachments count on them.

Only the `aws` partition's backends get them. The sandbox's account is in that partition (the API accepts its Regions
only), yet moto creates a backend for every partition at an account's first request, looking the caller's access key
up in each: building 1,300 policies into each of those was a thirtieth of the workflow suites' CPU.
"""

from __future__ import annotations

import json
from datetime import datetime
from functools import cache
from typing import Any

from moto.iam.aws_managed_policies import aws_managed_policies_data
from moto.iam.models import AWSManagedPolicy, IAMBackend, ManagedPolicy
from moto.settings import load_iam_aws_managed_policies

from sandbox.aws.patches import Patches

# moto keys IAM backends by partition (IAM is global within one).
SANDBOX_PARTITION = "aws"


@cache
def managed_policy_fields() -> tuple[tuple[str, dict[str, Any]], ...]:
    """Each AWS managed policy's name and constructor fields (those of moto's `AWSManagedPolicy.from_data`)."""
    return tuple(
        (
            name,
            {
                "default_version_id": data.get("DefaultVersionId"),
                "path": data.get("Path"),
                "document": json.dumps(data.get("Document")),
                "create_date": datetime.fromisoformat(data["CreateDate"]),
                "update_date": datetime.fromisoformat(data["UpdateDate"]),
            },
        )
        for name, data in json.loads(aws_managed_policies_data).items()
    )


def _init_aws_policies(backend: IAMBackend) -> list[ManagedPolicy]:
    if not load_iam_aws_managed_policies() or backend.region_name != SANDBOX_PARTITION:
        return []
    account, region = backend.account_id, backend.region_name
    # moto declares its models' CloudFormation hooks abstract and builds them anyway (`AWSManagedPolicy.from_data`).
    return [
        AWSManagedPolicy(name, account_id=account, region=region, **fields)  # type: ignore[abstract]
        for name, fields in managed_policy_fields()
    ]


class IamExtension:
    def __init__(self) -> None:
        self._patches = Patches()

    def install(self) -> None:
        self._patches.replace(IAMBackend, "_init_aws_policies", _init_aws_policies)

    def uninstall(self) -> None:
        self._patches.restore()
