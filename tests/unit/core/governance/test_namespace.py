"""A team's namespace preparation against in-memory fakes: what readiness reports missing, the claim copies with
their own volume handles, the jobs' identity copied only when the job namespace has it (and the jobs role trusts
team namespaces), what is not the control plane's refused, and removal of exactly the team's copies."""

from __future__ import annotations

import pytest

from controlplane.core.features.job_identity import job_trust
from controlplane.core.governance.namespace import (
    TeamNamespaces,
    TeamNamespaceSteps,
    namespace_ready,
    team_plan,
)
from controlplane.core.operations.inputs import workflow_input
from controlplane.core.polling import Poller
from controlplane.core.team_targets import TeamNamespaceNotReadyError
from controlplane.models.errors import ClusterNotReadyError, ForeignResourceError
from controlplane.models.operations import OperationKind
from controlplane.models.workflow import TeamNamespaceInput
from tests.fakes.deployment import DEPLOYMENT
from tests.unit.core.hyperpod.world import ACCOUNT, EKS_NAME, POLL, REGION, TAG, World

TEAM, NAMESPACE, CLAIM = "ml-a", "hyperpod-ns-ml-a", "s3-claim"
SOURCE_PV = f"pv-{TAG}-{CLAIM}"
JOBS_ROLE = f"instantstart-{TAG}-training-jobs"
SA = "instantstart-jobs"


@pytest.fixture
def world() -> World:
    world = World()
    world.register(("eks", "dependencies", "hyperpod", "storage"), storageClaim=f"default/{CLAIM}")
    world.eks.add_cluster(EKS_NAME)
    cluster = world.eks.clusters[EKS_NAME]
    world.kubernetes.apply(
        cluster,
        REGION,
        [
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NAMESPACE}},
            {
                "apiVersion": "v1",
                "kind": "PersistentVolume",
                "metadata": {"name": SOURCE_PV},
                "spec": {
                    "capacity": {"storage": "1200Gi"},
                    "accessModes": ["ReadWriteMany"],
                    "claimRef": {"namespace": "default", "name": CLAIM},
                    "mountOptions": ["allow-delete"],
                    "csi": {
                        "driver": "s3.csi.aws.com",
                        "volumeHandle": f"s3-csi-driver-volume-{CLAIM}",
                        "volumeAttributes": {"bucketName": "data"},
                    },
                },
            },
            {
                "apiVersion": "v1",
                "kind": "PersistentVolumeClaim",
                "metadata": {"name": CLAIM, "namespace": "default"},
                "spec": {"volumeName": SOURCE_PV},
            },
        ],
    )
    return world


def with_jobs_identity(world: World, *, before_teams: bool = False) -> None:
    """The trainingOperator feature's chain in the job namespace (its role made before teams: trusting `default`)."""
    trust = job_trust(ACCOUNT, EKS_NAME, "default")
    if before_teams:
        trust["Statement"][0]["Condition"] = {"StringEquals": {"aws:RequestTag/kubernetes-namespace": "default"}}
    role = world.iam.create_role(JOBS_ROLE, trust, {}, "boundary")
    world.eks.create_pod_identity_association(EKS_NAME, "default", SA, role.arn, {})


def steps(world: World) -> TeamNamespaceSteps:
    return TeamNamespaceSteps(world.eks, world.kubernetes, world.iam, Poller(POLL, world.clock), DEPLOYMENT)


def ctx(world: World, kind: OperationKind = OperationKind.PREPARE_TEAM_NAMESPACE) -> TeamNamespaceInput:
    record = world.registry.find(TAG)
    built = workflow_input(kind, "op-1", record, ACCOUNT, team=team_plan(DEPLOYMENT, record, TEAM))
    assert isinstance(built, TeamNamespaceInput)
    return built


def objects(world: World) -> dict:
    return world.kubernetes.api(EKS_NAME).objects


def bind_team_claim(world: World) -> None:
    """The PV controller's part: the team's claim Bound."""
    claim = objects(world)[f"PersistentVolumeClaim/{NAMESPACE}/{CLAIM}"]
    claim["status"] = {"phase": "Bound"}


def readiness(world: World):
    plan = team_plan(DEPLOYMENT, world.registry.find(TAG), TEAM)
    return namespace_ready(world.eks, world.kubernetes, world.eks.clusters[EKS_NAME], REGION, plan)


def test_the_claim_is_copied_with_its_own_volume_and_handle_on_the_same_bucket(world):
    steps(world).prepare_team_claim(ctx(world))
    volume = objects(world)[f"PersistentVolume/{SOURCE_PV.replace(CLAIM, f'{TEAM}-{CLAIM}')}"]
    assert volume["spec"]["csi"]["volumeAttributes"] == {"bucketName": "data"}
    assert volume["spec"]["csi"]["volumeHandle"] == f"s3-csi-driver-volume-{CLAIM}-{NAMESPACE}"
    assert volume["spec"]["claimRef"] == {"namespace": NAMESPACE, "name": CLAIM}
    assert (volume["spec"]["mountOptions"], volume["spec"]["persistentVolumeReclaimPolicy"]) == (
        ["allow-delete"],
        "Retain",
    )
    claim = objects(world)[f"PersistentVolumeClaim/{NAMESPACE}/{CLAIM}"]
    assert claim["spec"]["volumeName"] == volume["metadata"]["name"]


def test_the_namespace_gets_the_secret_reader_so_a_teams_server_may_name_its_token_secret(world):
    steps(world).prepare_team_claim(ctx(world))
    role = objects(world)[f"Role/{NAMESPACE}/instantstart-secret-reader"]
    assert role["rules"] == [{"apiGroups": [""], "resources": ["secrets"], "verbs": ["get"]}]
    binding = objects(world)[f"RoleBinding/{NAMESPACE}/instantstart-secret-reader"]
    assert binding["subjects"][0]["name"] == "instantstart:job-writers"


def test_readiness_names_what_the_namespace_lacks_until_its_claim_is_bound(world):
    assert readiness(world).missing == (f"claim {NAMESPACE}/{CLAIM}",)
    steps(world).prepare_team_claim(ctx(world))
    assert readiness(world).missing == (f"claim {NAMESPACE}/{CLAIM} (Pending)",)
    bind_team_claim(world)
    assert readiness(world).ready


def test_without_the_jobs_identity_in_the_job_namespace_none_is_copied_or_required(world):
    assert steps(world).prepare_team_identity(ctx(world))["identity"].startswith("none")
    assert (EKS_NAME, NAMESPACE, SA) not in world.eks.pod_identities
    steps(world).prepare_team_claim(ctx(world))
    bind_team_claim(world)
    assert readiness(world).ready


def test_the_jobs_identity_is_copied_to_the_team_namespace(world):
    with_jobs_identity(world)
    assert readiness(world).missing == (
        f"claim {NAMESPACE}/{CLAIM}",
        f"ServiceAccount {NAMESPACE}/{SA}",
        f"pod identity association {NAMESPACE}/{SA}",
    )
    steps(world).prepare_team_identity(ctx(world))
    assert f"ServiceAccount/{NAMESPACE}/{SA}" in objects(world)
    assert world.eks.pod_identities[(EKS_NAME, NAMESPACE, SA)] == world.iam.roles[JOBS_ROLE].role.arn


def test_a_jobs_role_that_does_not_trust_team_namespaces_is_not_associated_saying_how_to_recreate_it(world):
    with_jobs_identity(world, before_teams=True)
    with pytest.raises(ClusterNotReadyError, match="Disable and enable the trainingOperator feature"):
        steps(world).prepare_team_identity(ctx(world))
    assert (EKS_NAME, NAMESPACE, SA) not in world.eks.pod_identities
    assert f"ServiceAccount/{NAMESPACE}/{SA}" not in objects(world)


def test_a_claim_or_service_account_that_is_not_the_control_planes_is_refused(world):
    foreign = {"apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": CLAIM, "namespace": NAMESPACE}}
    world.kubernetes.apply(world.eks.clusters[EKS_NAME], REGION, [foreign])
    with pytest.raises(ForeignResourceError, match="not made by InstantStart"):
        steps(world).prepare_team_claim(ctx(world))
    with_jobs_identity(world)
    account = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": SA, "namespace": NAMESPACE}}
    world.kubernetes.apply(world.eks.clusters[EKS_NAME], REGION, [account])
    with pytest.raises(ForeignResourceError, match=f"ServiceAccount {NAMESPACE}/{SA}"):
        steps(world).prepare_team_identity(ctx(world))


def test_removal_deletes_exactly_the_teams_copies_and_keeps_the_namespace_and_the_original(world):
    with_jobs_identity(world)
    steps(world).prepare_team_claim(ctx(world))
    steps(world).prepare_team_identity(ctx(world))
    remove = ctx(world, OperationKind.REMOVE_TEAM_NAMESPACE)
    steps(world).remove_team_claim(remove)
    steps(world).remove_team_identity(remove)
    assert sorted(objects(world)) == [
        f"Namespace/{NAMESPACE}",
        f"PersistentVolume/{SOURCE_PV}",
        f"PersistentVolumeClaim/default/{CLAIM}",
    ]
    assert (EKS_NAME, NAMESPACE, SA) not in world.eks.pod_identities
    assert (EKS_NAME, "default", SA) in world.eks.pod_identities


def test_a_submission_into_an_unready_namespace_is_refused_saying_how_to_prepare_it(world):
    namespaces = TeamNamespaces(world.operations, lambda region: world.eks, world.kubernetes, DEPLOYMENT)
    with pytest.raises(TeamNamespaceNotReadyError, match=f"POST /clusters/{TAG}/teams/{TEAM}/namespace") as error:
        namespaces.require_ready(world.registry.find(TAG), TEAM)
    assert error.value.status == 409
    steps(world).prepare_team_claim(ctx(world))
    bind_team_claim(world)
    namespaces.require_ready(world.registry.find(TAG), TEAM)
