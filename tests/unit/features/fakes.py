"""In-memory fakes of the ports the features use (IAM, EKS, HyperPod, Kubernetes, S3), and a cluster that has
finished the dependencies stage, for unit tests of `controlplane.core.features`.

Each fake keeps the state its Protocol in `controlplane.core.ports` describes and moves through the same
lifecycles (an add-on is CREATING until `settle()`, a HyperPod update leaves the cluster Updating until `settle()`),
so a test can drive a feature round by round the way the workflow's poll loop does.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any

from controlplane.config import feature_pins
from controlplane.core.auth import Actor, Role
from controlplane.core.features.facts import ClusterFacts
from controlplane.core.features.panel import FeaturePanelService
from controlplane.core.features.steps import FeatureSteps
from controlplane.core.naming import ownership_tags
from controlplane.core.operations.service import OperationService
from controlplane.core.polling import Poller, PollSettings
from controlplane.core.ports.eks import Addon, EksCluster
from controlplane.core.ports.hyperpod import HyperPodCluster, InstanceGroup
from controlplane.core.ports.iam import IamRole, ManagedPolicy
from controlplane.models.clusters import ClusterRecord, ClusterStatus, StageName
from controlplane.models.features import Feature, FeatureChange, FeatureChanges, FeatureState
from controlplane.models.operations import OperationKind
from controlplane.models.workflow import PollState, WorkflowInput, parse_input
from tests.fakes.persistence import FakeClock, InMemoryClusterRegistry, InMemoryOperationRepository, RecordingLauncher

ACCOUNT = "123456789012"
REGION = "us-west-2"
TAG = "demo"
EKS_NAME = "eks-cluster-demo"
HYPERPOD_NAME = "hp-cluster-demo"
ISSUER = "https://oidc.eks.us-west-2.amazonaws.com/id/EXAMPLE"
WORKLOAD_BOUNDARY = f"arn:aws:iam::{ACCOUNT}:policy/workload-boundary"
AUTOSCALING_BOUNDARY = f"arn:aws:iam::{ACCOUNT}:policy/autoscaling-boundary"
ADMIN = Actor("alice", Role.ADMIN)
POLL = PollSettings(first_wait_seconds=5, max_wait_seconds=60)


class InMemoryIam:
    def __init__(self) -> None:
        self.roles: dict[str, IamRole] = {}
        self.trust: dict[str, dict[str, Any]] = {}
        self.boundaries: dict[str, str | None] = {}
        self.inline: dict[str, dict[str, dict[str, Any]]] = {}
        self.policies: dict[str, ManagedPolicy] = {}
        self.documents: dict[str, dict[str, Any]] = {}
        self.providers: dict[str, tuple[str, dict[str, str]]] = {}

    def find_role(self, name: str) -> IamRole | None:
        return self.roles.get(name)

    def create_role(
        self, name: str, trust_policy: dict[str, Any], tags: dict[str, str], boundary_arn: str | None = None
    ) -> IamRole:
        assert name not in self.roles, f"EntityAlreadyExists: role {name}"
        role = IamRole(name=name, arn=f"arn:aws:iam::{ACCOUNT}:role/{name}", tags=dict(tags))
        self.roles[name] = role
        self.trust[name] = copy.deepcopy(trust_policy)
        self.boundaries[name] = boundary_arn
        self.inline[name] = {}
        return role

    def attach_policy(self, role_name: str, policy_arn: str) -> None:
        role = self.roles[role_name]
        self.roles[role_name] = replace(role, attached_policy_arns=role.attached_policy_arns | {policy_arn})

    def role_policy(self, role_name: str, policy_name: str) -> dict[str, Any] | None:
        return copy.deepcopy(self.inline.get(role_name, {}).get(policy_name))

    def put_role_policy(self, role_name: str, policy_name: str, document: dict[str, Any]) -> None:
        self.inline[role_name][policy_name] = copy.deepcopy(document)

    def list_oidc_providers(self) -> list[str]:
        return [arn for arn, _ in self.providers.values()]

    def find_oidc_provider(self, issuer_url: str) -> str | None:
        found = self.providers.get(issuer_url)
        return found[0] if found else None

    def create_oidc_provider(self, issuer_url: str, tags: dict[str, str]) -> str:
        arn = f"arn:aws:iam::{ACCOUNT}:oidc-provider/{issuer_url.removeprefix('https://')}"
        self.providers[issuer_url] = (arn, dict(tags))
        return arn

    def oidc_provider_tags(self, arn: str) -> dict[str, str]:
        return next(dict(tags) for found, tags in self.providers.values() if found == arn)

    def delete_oidc_provider(self, arn: str) -> None:
        self.providers = {issuer: found for issuer, found in self.providers.items() if found[0] != arn}

    def delete_role(self, name: str) -> None:
        for store in (self.roles, self.trust, self.boundaries, self.inline):
            store.pop(name, None)

    def find_policy(self, arn: str) -> ManagedPolicy | None:
        return self.policies.get(arn)

    def create_policy(self, name: str, document: dict[str, Any], tags: dict[str, str]) -> str:
        arn = f"arn:aws:iam::{ACCOUNT}:policy/{name}"
        self.policies[arn] = ManagedPolicy(name=name, arn=arn, tags=dict(tags), attachments=0)
        self.documents[arn] = copy.deepcopy(document)
        return arn

    def delete_policy(self, arn: str) -> None:
        self.policies.pop(arn, None)
        self.documents.pop(arn, None)


@dataclass
class AddonCall:
    """What CreateAddon was asked, beyond the add-on itself."""

    role_arn: str | None
    configuration: str | None
    pod_identities: dict[str, str] | None


class InMemoryEks:
    def __init__(self) -> None:
        self.clusters: dict[str, EksCluster] = {}
        self.addons: dict[tuple[str, str], Addon] = {}
        self.calls: dict[str, AddonCall] = {}
        self.pod_identities: dict[tuple[str, str, str], str] = {}

    def find_cluster(self, name: str) -> EksCluster | None:
        return self.clusters.get(name)

    def find_addon(self, cluster_name: str, addon_name: str) -> Addon | None:
        return self.addons.get((cluster_name, addon_name))

    def create_addon(
        self,
        cluster_name: str,
        addon_name: str,
        version: str,
        role_arn: str | None,
        tags: dict[str, str],
        *,
        configuration: str | None = None,
        pod_identities: dict[str, str] | None = None,
    ) -> Addon:
        assert (cluster_name, addon_name) not in self.addons, f"ResourceInUse: add-on {addon_name}"
        addon = Addon(name=addon_name, status="CREATING", version=version, tags=dict(tags))
        self.addons[(cluster_name, addon_name)] = addon
        self.calls[addon_name] = AddonCall(role_arn, configuration, dict(pod_identities) if pod_identities else None)
        return addon

    def delete_addon(self, cluster_name: str, addon_name: str) -> None:
        key = (cluster_name, addon_name)
        if key in self.addons:
            self.addons[key] = replace(self.addons[key], status="DELETING")

    def pod_identity_role(self, cluster_name: str, namespace: str, service_account: str) -> str | None:
        return self.pod_identities.get((cluster_name, namespace, service_account))

    def settle(self) -> None:
        """Creating add-ons become ACTIVE and deleting ones disappear, as EKS does in time."""
        for key, addon in list(self.addons.items()):
            if addon.status == "CREATING":
                self.addons[key] = replace(addon, status="ACTIVE")
            elif addon.status == "DELETING":
                del self.addons[key]

    def install(self, addon_name: str, status: str = "ACTIVE", tags: dict[str, str] | None = None) -> None:
        """An add-on that exists before the test (e.g. from the dependencies stage or installed by hand)."""
        self.addons[(EKS_NAME, addon_name)] = Addon(
            name=addon_name, status=status, version="v1.0.0-eksbuild.1", tags=dict(tags or {})
        )


class InMemoryHyperPod:
    def __init__(self) -> None:
        self.clusters: dict[str, HyperPodCluster] = {}
        self.updates: list[dict[str, Any]] = []

    def find_cluster(self, name: str) -> HyperPodCluster | None:
        return self.clusters.get(name)

    def update_settings(self, name: str, settings: dict[str, Any]) -> None:
        cluster = self.clusters[name]
        merged = {**cluster.settings, **copy.deepcopy(settings)}
        if "AutoScaling" in settings:
            enabling = settings["AutoScaling"].get("Mode") == "Enable"
            merged["AutoScaling"] = {**settings["AutoScaling"], "Status": "Creating" if enabling else "Deleting"}
        self.updates.append(copy.deepcopy(settings))
        self.clusters[name] = replace(cluster, status="Updating", settings=merged)

    def settle(self) -> None:
        """Updates finish: the cluster and its autoscaling are InService again."""
        for name, cluster in self.clusters.items():
            settings = copy.deepcopy(cluster.settings)
            if "AutoScaling" in settings:
                settings["AutoScaling"]["Status"] = "InService"
            self.clusters[name] = replace(cluster, status="InService", settings=settings)


def group(name: str, **details: Any) -> InstanceGroup:
    """An instance group as the HyperPod port describes it."""
    fields: dict[str, Any] = {
        "instance_type": "ml.g5.8xlarge",
        "status": "InService",
        "current_count": 1,
        "target_count": 1,
    }
    return InstanceGroup(name=name, **(fields | details))


class InMemoryKubernetes:
    """One cluster's objects by (apiVersion, kind, namespace, name); apply replaces, delete skips absent ones."""

    def __init__(self) -> None:
        self.objects: dict[tuple[str, str, str | None, str], dict[str, Any]] = {}

    @staticmethod
    def _key(obj: dict[str, Any]) -> tuple[str, str, str | None, str]:
        metadata = obj["metadata"]
        return obj["apiVersion"], obj["kind"], metadata.get("namespace"), metadata["name"]

    @staticmethod
    def _describe(key: tuple[str, str, str | None, str]) -> str:
        _, kind, namespace, name = key
        return f"{kind}/{namespace or ''}/{name}"

    def apply(self, cluster: EksCluster, region: str, objects: list[dict[str, Any]]) -> list[str]:
        for obj in objects:
            self.objects[self._key(obj)] = copy.deepcopy(obj)
        return [self._describe(self._key(obj)) for obj in objects]

    def present(self, cluster: EksCluster, region: str, objects: list[dict[str, Any]]) -> list[str]:
        return [self._describe(self._key(obj)) for obj in objects if self._key(obj) in self.objects]

    def delete(self, cluster: EksCluster, region: str, objects: list[dict[str, Any]]) -> list[str]:
        deleted = [self._key(obj) for obj in objects if self._key(obj) in self.objects]
        for key in deleted:
            del self.objects[key]
        return [self._describe(key) for key in deleted]

    def get(
        self, cluster: EksCluster, region: str, api_version: str, kind: str, name: str, namespace: str | None = None
    ) -> dict[str, Any] | None:
        found = self.objects.get((api_version, kind, namespace, name))
        return copy.deepcopy(found) if found is not None else None

    def kinds(self) -> list[str]:
        return sorted(f"{kind} {name}" for _, kind, _, name in self.objects)


class InMemoryBuckets:
    def __init__(self) -> None:
        self.buckets: dict[str, dict[str, str]] = {}

    def bucket_tags(self, bucket: str) -> dict[str, str] | None:
        tags = self.buckets.get(bucket)
        return dict(tags) if tags is not None else None

    def create_bucket(self, bucket: str, tags: dict[str, str]) -> None:
        self.buckets[bucket] = dict(tags)

    def delete_bucket(self, bucket: str) -> None:
        self.buckets.pop(bucket, None)


KUBERAY_OBJECTS = [
    {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "kuberay-operator"}},
    {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "kuberay-operator", "namespace": "kuberay-operator"},
    },
]


def render_bundle(bundle: str, file: str, values: dict[str, str]) -> list[dict[str, Any]]:
    """A two-object KubeRay bundle whose objects carry the feature's labels, as the real manifest's do."""
    assert bundle == "kuberay-operator" and values["image"]
    labels = {"app.kubernetes.io/managed-by": "instantstart", "instantstart.aws/feature": "kuberayOperator"}
    return [{**obj, "metadata": {**obj["metadata"], "labels": labels}} for obj in copy.deepcopy(KUBERAY_OBJECTS)]


class FixedAccount:
    def account_id(self) -> str:
        return ACCOUNT


@dataclass
class FeatureWorld:
    """A cluster that finished the dependencies stage (EKS ACTIVE with its OIDC provider, the stage-3 add-ons and
    the training operator's pod identity) plus an InService HyperPod cluster, and the services over them."""

    iam: InMemoryIam = field(default_factory=InMemoryIam)
    eks: InMemoryEks = field(default_factory=InMemoryEks)
    hyperpod: InMemoryHyperPod = field(default_factory=InMemoryHyperPod)
    kubernetes: InMemoryKubernetes = field(default_factory=InMemoryKubernetes)
    buckets: InMemoryBuckets = field(default_factory=InMemoryBuckets)
    registry: InMemoryClusterRegistry = field(default_factory=InMemoryClusterRegistry)
    launcher: RecordingLauncher = field(default_factory=RecordingLauncher)
    clock: FakeClock = field(default_factory=FakeClock)

    def __post_init__(self) -> None:
        self.eks.clusters[EKS_NAME] = EksCluster(
            name=EKS_NAME,
            arn=f"arn:aws:eks:{REGION}:{ACCOUNT}:cluster/{EKS_NAME}",
            status="ACTIVE",
            version="1.32",
            endpoint="https://example.eks.amazonaws.com",
            certificate_authority="Y2E=",
            oidc_issuer=ISSUER,
            authentication_mode="API",
        )
        self.iam.create_oidc_provider(ISSUER, ownership_tags(TAG))
        for addon in ("eks-pod-identity-agent", "aws-mountpoint-s3-csi-driver", "metrics-server"):
            self.eks.install(addon, tags=ownership_tags(TAG))
        self.eks.pod_identities[(EKS_NAME, "aws-hyperpod", "hp-training-operator-controller-manager")] = (
            f"arn:aws:iam::{ACCOUNT}:role/instantstart-{TAG}-training-operator"
        )
        self.add_hyperpod(HYPERPOD_NAME)
        self.register()
        self.steps = FeatureSteps(
            self.iam,
            self.eks,
            self.hyperpod,
            self.kubernetes,
            render_bundle,
            feature_pins(),
            Poller(POLL, self.clock),
            WORKLOAD_BOUNDARY,
            self.buckets,
            AUTOSCALING_BOUNDARY,
        )
        self.operations = OperationService(
            InMemoryOperationRepository(), self.registry, self.launcher, FixedAccount(), self.clock
        )
        self.panel = FeaturePanelService(self.registry, FixedAccount(), self.operations, lambda region: self.steps)

    def add_hyperpod(self, name: str, *groups: dict[str, Any], **settings: Any) -> None:
        self.hyperpod.clusters[name] = HyperPodCluster(
            name=name,
            arn=f"arn:aws:sagemaker:{REGION}:{ACCOUNT}:cluster/{name}",
            status="InService",
            failure_message=None,
            groups=groups or (group("workers"),),
            tags=ownership_tags(TAG),
            settings={"NodeProvisioningMode": "Continuous", "NodeRecovery": "Automatic", **settings},
        )

    def register(self, **fields: Any) -> ClusterRecord:
        now = datetime(2026, 12, 2, 12, 0, tzinfo=UTC)
        defaults: dict[str, Any] = {
            "clusterTag": TAG,
            "region": REGION,
            "status": ClusterStatus.ACTIVE,
            "eksClusterName": EKS_NAME,
            "stagesDone": [StageName.EKS.value, StageName.DEPENDENCIES.value],
            "createdAt": now,
            "updatedAt": now,
            "createdBy": "alice",
            "accountId": ACCOUNT,
        }
        record = ClusterRecord(**{**defaults, **fields})
        self.registry.items[TAG] = record
        return record

    def settle(self) -> None:
        self.eks.settle()
        self.hyperpod.settle()

    def facts(self, hyperpod_name: str = HYPERPOD_NAME) -> ClusterFacts:
        return self.steps.facts(TAG, REGION, ACCOUNT, EKS_NAME, hyperpod_name)

    def state(self, feature: Feature) -> FeatureState:
        return self.steps.live(self.facts())[feature]

    def workflow_input(self, feature: Feature, change: FeatureChange, **fields: Any) -> WorkflowInput:
        return parse_input(
            {
                "operationId": "op-1",
                "kind": OperationKind.UPDATE_CLUSTER_FEATURES,
                "clusterTag": TAG,
                "region": REGION,
                "accountId": ACCOUNT,
                "eksClusterName": EKS_NAME,
                "hyperPodClusterName": HYPERPOD_NAME,
                "imported": False,
                "features": FeatureChanges(**{feature.value: change}),
                **fields,
            }
        )

    def enable(self, feature: Feature, change: FeatureChange | None = None, rounds: int = 6) -> PollState:
        """Run the feature's Ensure step the way the workflow's poll loop does, settling AWS between rounds."""
        ctx = self.workflow_input(feature, change or FeatureChange(change="enable"))
        return self._poll(lambda c: self.steps.ensure(feature, c), ctx, rounds)

    def disable(self, feature: Feature, rounds: int = 6) -> PollState:
        ctx = self.workflow_input(feature, FeatureChange(change="disable"))
        return self._poll(lambda c: self.steps.remove(feature, c), ctx, rounds)

    def _poll(self, step: Any, ctx: WorkflowInput, rounds: int) -> PollState:
        state = step(ctx)
        for _ in range(rounds):
            if state.done:
                return state
            self.settle()
            state = step(ctx.model_copy(update={"poll": state}))
        return state
