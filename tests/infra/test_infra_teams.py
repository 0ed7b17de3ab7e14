"""Team namespaces in the stack: their two state machines, and a step role that reaches Kubernetes, creates and
deletes pod identity associations (deleting only its own), passes only the jobs roles to EKS Pod Identity, and reads
but never writes a role."""

from __future__ import annotations

from typing import Any

from controlplane.core.naming import DEFAULT_DEPLOYMENT_NAME, state_machine_name
from controlplane.models.operations import OperationKind


def actions(statements: list[dict[str, Any]]) -> set[str]:
    return {action for s in statements for action in ([s["Action"]] if isinstance(s["Action"], str) else s["Action"])}


def test_the_team_namespace_workflows_have_their_state_machines(synth: Any) -> None:
    names = [p["Properties"]["StateMachineName"] for p in synth.of_type("AWS::StepFunctions::StateMachine").values()]
    for kind in (OperationKind.PREPARE_TEAM_NAMESPACE, OperationKind.REMOVE_TEAM_NAMESPACE):
        assert state_machine_name(DEFAULT_DEPLOYMENT_NAME, kind) in names


def test_the_team_namespace_steps_grant_kubernetes_pod_identity_and_role_reads_only(synth: Any) -> None:
    statements = synth.statements(synth.role_of(synth.step_function("team_namespaces")))
    granted = {a for a in actions(statements) if not a.startswith(("logs:", "xray:", "dynamodb:"))}
    assert granted == {
        "eks:DescribeCluster",
        "sts:AssumeRole",
        "eks:ListPodIdentityAssociations",
        "eks:DescribePodIdentityAssociation",
        "eks:CreatePodIdentityAssociation",
        "eks:TagResource",
        "eks:DeletePodIdentityAssociation",
        "iam:PassRole",
        "iam:GetRole",
        "iam:ListAttachedRolePolicies",
        "iam:ListRoleTags",
        "iam:ListRolePolicies",
    }
    (passing,) = [s for s in statements if "iam:PassRole" in actions([s])]
    assert "training-jobs" in str(passing["Resource"])
    assert passing["Condition"] == {"StringEquals": {"iam:PassedToService": "pods.eks.amazonaws.com"}}
    (deleting,) = [s for s in statements if "eks:DeletePodIdentityAssociation" in actions([s])]
    assert "aws:ResourceTag/instantstart:managed-by" in str(deleting["Condition"])
