"""Out-of-band changes: what someone does to a sandbox cluster's resources behind the control plane's back (with
their own AWS calls), so that a drift check has something to find."""

from __future__ import annotations

from typing import Any

import boto3

from sandbox.aws.hyperpod.simulation import HyperPodSimulation

USAGE = (
    '{"action": "delete-role", "roleName": "instantstart-demo-observability"} or {"action": "resize-group", '
    '"clusterName": "hp-cluster-demo", "instanceGroup": "workers", "instanceCount": 2}'
)


def apply(hyperpod: HyperPodSimulation, change: dict[str, Any]) -> None:
    """Make one change; KeyError, ValueError or TypeError for a body that names none."""
    action = change["action"]
    if action == "delete-role":
        delete_role(str(change["roleName"]))
    elif action == "resize-group":
        count = int(change["instanceCount"])
        if count < 0:
            raise ValueError("instanceCount must be at least 0")
        hyperpod.resize_group_out_of_band(str(change["clusterName"]), str(change["instanceGroup"]), count)
    else:
        raise ValueError(f"unknown action {action!r}")


def delete_role(name: str) -> None:
    """Delete an IAM role the way a person would: its policies detached and deleted first."""
    iam = boto3.client("iam")
    try:
        attached = iam.list_attached_role_policies(RoleName=name)["AttachedPolicies"]
    except iam.exceptions.NoSuchEntityException as error:
        raise KeyError(f"No IAM role named {name}") from error
    for policy in attached:
        iam.detach_role_policy(RoleName=name, PolicyArn=policy["PolicyArn"])
    for policy_name in iam.list_role_policies(RoleName=name)["PolicyNames"]:
        iam.delete_role_policy(RoleName=name, PolicyName=policy_name)
    iam.delete_role(RoleName=name)
