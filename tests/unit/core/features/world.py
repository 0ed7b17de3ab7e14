"""A cluster that has finished the dependencies stage, built from the shared in-memory fakes (`tests/fakes`), and
the features' services over it, for unit tests of `controlplane.core.features`.

The fakes move through the adapters' lifecycles (an add-on is CREATING until `settle()`, a HyperPod settings update
leaves the cluster Updating until `settle()`), so a test can drive a feature round by round the way the workflow's
poll loop does. Fakes themselves belong in `tests/fakes`, not here.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from controlplane.config import cluster_dependencies
from controlplane.config.images import image_table
from controlplane.core.auth import Actor, Role
from controlplane.core.confirmations import Confirmations
from controlplane.core.features.declaration import FeaturePorts
from controlplane.core.features.facts import ClusterFacts
from controlplane.core.features.panel import FeaturePanelService
from controlplane.core.features.steps import FeatureSteps
from controlplane.core.naming import ownership_tags
from controlplane.core.operations.service import OperationService
from controlplane.core.polling import Poller, PollSettings
from controlplane.core.ports.hyperpod import InstanceGroup
from controlplane.core.ports.iam import RoleBoundaries
from controlplane.core.registry import ClusterService
from controlplane.models.clusters import ClusterRecord, StageName
from controlplane.models.features import Feature, FeatureChange, FeatureChanges, FeatureState
from controlplane.models.operations import OperationKind
from controlplane.models.workflow import PollState, WorkflowInput, parse_input
from tests.fakes.account import ACCOUNT_ID, InMemoryAccountGateway
from tests.fakes.deployment import DEPLOYMENT
from tests.fakes.eks import InMemoryEksGateway
from tests.fakes.hyperpod import InMemoryHyperPodGateway
from tests.fakes.iam import InMemoryIamGateway
from tests.fakes.kubernetes import InMemoryKubernetesGateway
from tests.fakes.persistence import (
    FakeClock,
    InMemoryAuditLog,
    InMemoryClusterRegistry,
    InMemoryConfirmationStore,
    InMemoryOperationRepository,
    RecordingLauncher,
)
from tests.fakes.prometheus import InMemoryPrometheusGateway
from tests.fakes.storage import InMemoryBucketGateway
from tests.unit.records import cluster_record

ACCOUNT = ACCOUNT_ID
REGION = "us-west-2"
TAG = "demo"
EKS_NAME = "eks-cluster-demo"
HYPERPOD_NAME = "hp-cluster-demo"
ISSUER = "https://oidc.eks.us-west-2.amazonaws.com/id/EXAMPLE"
OIDC_PROVIDER = f"arn:aws:iam::{ACCOUNT}:oidc-provider/{ISSUER.removeprefix('https://')}"
WORKLOAD_BOUNDARY = f"arn:aws:iam::{ACCOUNT}:policy/workload-boundary"
AUTOSCALING_BOUNDARY = f"arn:aws:iam::{ACCOUNT}:policy/autoscaling-boundary"
SERVICE_BOUNDARY = f"arn:aws:iam::{ACCOUNT}:policy/service-boundary"
ADMIN = Actor("alice", Role.ADMIN)
POLL = PollSettings(first_wait_seconds=5, max_wait_seconds=60)


def group(name: str, **details: Any) -> InstanceGroup:
    """An instance group as the HyperPod port describes it."""
    fields: dict[str, Any] = {
        "instance_type": "ml.g5.8xlarge",
        "status": "InService",
        "current_count": 1,
        "target_count": 1,
    }
    return InstanceGroup(name=name, **(fields | details))


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


@dataclass
class FeatureWorld:
    """A cluster that finished the dependencies stage (EKS ACTIVE with its OIDC provider, the stage-3 add-ons and
    the training operator's pod identity) plus an InService HyperPod cluster, and the services over them."""

    iam: InMemoryIamGateway = field(default_factory=InMemoryIamGateway)
    eks: InMemoryEksGateway = field(default_factory=InMemoryEksGateway)
    hyperpod: InMemoryHyperPodGateway = field(default_factory=InMemoryHyperPodGateway)
    kubernetes: InMemoryKubernetesGateway = field(default_factory=InMemoryKubernetesGateway)
    buckets: InMemoryBucketGateway = field(default_factory=InMemoryBucketGateway)
    prometheus: InMemoryPrometheusGateway = field(default_factory=InMemoryPrometheusGateway)
    registry: InMemoryClusterRegistry = field(default_factory=InMemoryClusterRegistry)
    launcher: RecordingLauncher = field(default_factory=RecordingLauncher)
    account: InMemoryAccountGateway = field(default_factory=InMemoryAccountGateway)
    clock: FakeClock = field(default_factory=FakeClock)

    def __post_init__(self) -> None:
        self.eks.add_cluster(
            EKS_NAME,
            version="1.32",
            endpoint="https://example.eks.amazonaws.com",
            oidc_issuer=ISSUER,
            authentication_mode="API",
        )
        self.iam.create_oidc_provider(ISSUER, ownership_tags(DEPLOYMENT, TAG))
        for addon in ("eks-pod-identity-agent", "aws-mountpoint-s3-csi-driver", "metrics-server"):
            self.install_addon(addon, tags=ownership_tags(DEPLOYMENT, TAG))
        self.eks.pod_identities[(EKS_NAME, "aws-hyperpod", "hp-training-operator-controller-manager")] = (
            f"arn:aws:iam::{ACCOUNT}:role/instantstart-{TAG}-training-operator"
        )
        self.add_hyperpod(HYPERPOD_NAME)
        self.register()
        ports = FeaturePorts(
            iam=self.iam,
            eks=self.eks,
            hyperpod=self.hyperpod,
            kubernetes=self.kubernetes,
            render=render_bundle,
            buckets=self.buckets,
            prometheus=self.prometheus,
            boundaries=RoleBoundaries(
                workload=WORKLOAD_BOUNDARY, autoscaling=AUTOSCALING_BOUNDARY, service=SERVICE_BOUNDARY
            ),
            images=image_table(),
            dependency_addons=cluster_dependencies().addons,
        )
        self.steps = FeatureSteps(ports, Poller(POLL, self.clock), DEPLOYMENT, self.registry)
        self.operations = OperationService(
            InMemoryOperationRepository(),
            self.registry,
            self.launcher,
            self.account,
            self.clock,
            InMemoryAuditLog(),
            ClusterService(
                self.registry, lambda region: self.eks, lambda region: self.hyperpod, self.kubernetes, self.clock
            ).record_outcome,
        )
        self.panel = FeaturePanelService(
            self.registry,
            self.account,
            self.operations,
            Confirmations(InMemoryConfirmationStore(), self.clock),
            lambda region: self.steps,
        )

    @property
    def kubernetes_objects(self) -> dict[str, dict[str, Any]]:
        """The EKS cluster's Kubernetes objects by `Kind/namespace/name`."""
        return self.kubernetes.api(EKS_NAME).objects

    def install_addon(self, addon_name: str, status: str = "ACTIVE", tags: dict[str, str] | None = None) -> None:
        """An add-on on the EKS cluster before the test (from the dependencies stage, or installed by hand)."""
        self.eks.add_addon(EKS_NAME, addon_name, status, tags)

    def add_hyperpod(self, name: str, *groups: InstanceGroup, **settings: Any) -> None:
        self.hyperpod.put_cluster(
            name,
            groups or (group("workers"),),
            tags=ownership_tags(DEPLOYMENT, TAG),
            settings={"NodeProvisioningMode": "Continuous", "NodeRecovery": "Automatic", **settings},
        )

    def register(self, **fields: Any) -> ClusterRecord:
        """(Re-)register the cluster `demo` with EKS and its dependencies done; `fields` override any field."""
        stages = (StageName.EKS.value, StageName.DEPENDENCIES.value)
        record = cluster_record(*stages, at=datetime(2026, 12, 2, 12, 0, tzinfo=UTC), **fields)
        self.registry.items[TAG] = record
        return record

    def settle(self) -> None:
        self.eks.settle()
        self.hyperpod.settle()
        self.prometheus.settle()

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
                "incarnation": "inc-demo",
                "region": REGION,
                "accountId": ACCOUNT,
                "eksClusterName": EKS_NAME,
                "hyperPodClusterName": HYPERPOD_NAME,
                "imported": False,
                "features": FeatureChanges({feature: change}),
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
