"""The scheduled drift reconcile in the stack: a schedule invokes its function, whose role reads and never writes
(besides its three tables), and the Kubernetes view role it signs as trusts it."""

from __future__ import annotations

from typing import Any

from infra.drift import RECONCILE_HANDLER

WRITE_PREFIXES = ("Create", "Delete", "Update", "Put", "Attach", "Detach", "Tag", "Untag", "Batch")


def actions(statements: list[dict[str, Any]]) -> set[str]:
    return {action for s in statements for action in ([s["Action"]] if isinstance(s["Action"], str) else s["Action"])}


def reconcile_function(synth: Any) -> str:
    return synth.functions_by_handler()[RECONCILE_HANDLER]


def test_a_schedule_invokes_the_reconcile_function(synth: Any) -> None:
    (schedule,) = synth.of_type("AWS::Scheduler::Schedule").values()
    properties = schedule["Properties"]
    assert properties["ScheduleExpression"].startswith("rate(")
    assert reconcile_function(synth) in str(properties["Target"]["Arn"])


def test_the_reconcile_role_reads_clusters_and_writes_only_its_tables(synth: Any) -> None:
    statements = synth.statements(synth.role_of(reconcile_function(synth)))
    granted = {a for a in actions(statements) if not a.startswith(("logs:", "xray:", "dynamodb:"))}
    writes = {a for a in granted if a.split(":", 1)[1].startswith(WRITE_PREFIXES)}
    assert writes == set()
    assert {"sagemaker:DescribeCluster", "eks:DescribeAddon", "iam:GetRole", "sts:AssumeRole"} <= granted


def test_the_kubernetes_view_role_trusts_the_reconcile_role(synth: Any) -> None:
    role_id = synth.role_of(reconcile_function(synth))
    view_roles = [
        role
        for role in synth.of_type("AWS::IAM::Role").values()
        if "KubernetesViewRole" in str(role["Properties"].get("RoleName", ""))
        or "view only" in str(role["Properties"].get("Description", ""))
    ]
    (view_role,) = view_roles
    assert role_id in str(view_role["Properties"]["AssumeRolePolicyDocument"])
