"""A team's namespace made ready for workloads (the task governance add-on makes it): the cluster's claims copied
into it, the jobs' ServiceAccount and its pod identity association to the jobs role; and that removed again. One
group: the Kubernetes API through the access role, the associations on the cluster, a read of the jobs role."""

from __future__ import annotations

from controlplane import wiring
from controlplane.access.eks import CREATE_POD_IDENTITY, DELETE_POD_IDENTITY, DESCRIBE_EKS_CLUSTER, READ_POD_IDENTITIES
from controlplane.access.features import JOB_ROLES, JOB_ROLES_REASON
from controlplane.access.grant import ASSUME_KUBERNETES_ROLE
from controlplane.access.iam import pass_role, read_roles
from controlplane.core.identity import POD_IDENTITY_PRINCIPAL
from controlplane.models.workflow import PrepareTeamNamespaceInput, RemoveTeamNamespaceInput
from steps.groups import TEAM_NAMESPACES
from steps.step import work

_KUBERNETES = (DESCRIBE_EKS_CLUSTER, ASSUME_KUBERNETES_ROLE)

STEPS = (
    work(
        "Check Team Namespace",
        TEAM_NAMESPACES,
        PrepareTeamNamespaceInput,
        lambda ctx: wiring.team_namespace_steps(ctx.region).check_team_namespace(ctx),
        _KUBERNETES,
        settled="Namespace {team[namespace]} exists",
    ),
    work(
        "Prepare Team Claim",
        TEAM_NAMESPACES,
        PrepareTeamNamespaceInput,
        lambda ctx: wiring.team_namespace_steps(ctx.region).prepare_team_claim(ctx),
        _KUBERNETES,
    ),
    work(
        "Prepare Team Identity",
        TEAM_NAMESPACES,
        PrepareTeamNamespaceInput,
        lambda ctx: wiring.team_namespace_steps(ctx.region).prepare_team_identity(ctx),
        (
            *_KUBERNETES,
            *READ_POD_IDENTITIES,
            *CREATE_POD_IDENTITY,
            pass_role(JOB_ROLES, POD_IDENTITY_PRINCIPAL, JOB_ROLES_REASON),
            # Its trust is read, never written (UpdateAssumeRolePolicy would let the step widen any jobs role).
            read_roles(JOB_ROLES, JOB_ROLES_REASON),
        ),
    ),
    work(
        "Verify Team Namespace",
        TEAM_NAMESPACES,
        PrepareTeamNamespaceInput,
        lambda ctx: wiring.team_namespace_steps(ctx.region).verify_team_namespace(ctx),
        (*_KUBERNETES, *READ_POD_IDENTITIES),
        settled="Namespace {team[namespace]} is ready for workloads",
    ),
    work(
        "Remove Team Claim",
        TEAM_NAMESPACES,
        RemoveTeamNamespaceInput,
        lambda ctx: wiring.team_namespace_steps(ctx.region).remove_team_claim(ctx),
        _KUBERNETES,
    ),
    work(
        "Remove Team Identity",
        TEAM_NAMESPACES,
        RemoveTeamNamespaceInput,
        lambda ctx: wiring.team_namespace_steps(ctx.region).remove_team_identity(ctx),
        (*_KUBERNETES, *READ_POD_IDENTITIES, DELETE_POD_IDENTITY),
    ),
)
