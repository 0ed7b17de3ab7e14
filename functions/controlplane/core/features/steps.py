"""The workflow's entry points into the features (`FeatureSteps`): ensure or remove one feature, and delete
what the features created outside the clusters when a cluster is deleted.

Each call reads the cluster's facts, runs the feature's own level-triggered ensure or remove (one module per
feature) and turns its answer into the poll state the workflow's wait loop reads. Not here: the diff of a PATCH
and the dependency rules (`core.features.panel`).
"""

from __future__ import annotations

from functools import cache, partial

from controlplane.config import FeaturePins
from controlplane.core import deadlines
from controlplane.core.dependencies.addons import schedulable
from controlplane.core.features.cert_manager import cert_manager_feature
from controlplane.core.features.facts import ClusterFacts, FeatureHandler
from controlplane.core.features.fsx_csi_driver import fsx_csi_driver_feature
from controlplane.core.features.inference_operator import inference_operator_feature
from controlplane.core.features.job_identity import JobIdentity
from controlplane.core.features.karpenter import Karpenter
from controlplane.core.features.kuberay_operator import kuberay_operator_feature
from controlplane.core.features.observability import ObservabilityFeature
from controlplane.core.features.tiered_storage import TieredStorage
from controlplane.core.features.training_operator import TrainingOperator
from controlplane.core.naming import DEFAULT_JOB_NAMESPACE, Deployment, job_namespace
from controlplane.core.polling import Poller, Wait
from controlplane.core.ports.eks import EksCluster, EksGateway
from controlplane.core.ports.hyperpod import HyperPodGateway
from controlplane.core.ports.iam import IamGateway, RoleBoundaries
from controlplane.core.ports.kubernetes import KubernetesGateway, ManifestRenderer
from controlplane.core.ports.persistence import ClusterRegistry
from controlplane.core.ports.prometheus import PrometheusGateway
from controlplane.core.ports.storage import BucketGateway
from controlplane.models.features import Feature, FeatureState
from controlplane.models.workflow import (
    DeleteEksClusterInput,
    FeatureChangesInput,
    PollState,
    UpdateClusterFeaturesInput,
    WorkflowState,
)


class FeatureSteps:
    """The features of the clusters in one Region."""

    def __init__(
        self,
        iam: IamGateway,
        eks: EksGateway,
        hyperpod: HyperPodGateway,
        kubernetes: KubernetesGateway,
        render: ManifestRenderer,
        pins: FeaturePins,
        poll: Poller,
        boundaries: RoleBoundaries,
        buckets: BucketGateway,
        deployment: Deployment,
        registry: ClusterRegistry,
        prometheus: PrometheusGateway,
    ) -> None:
        self._deployment = deployment
        self._registry = registry
        self._eks = eks
        self._hyperpod = hyperpod
        self._poll = poll
        self._kubernetes = kubernetes
        self._features: dict[Feature, FeatureHandler] = {
            Feature.CERT_MANAGER: cert_manager_feature(eks, pins),
            Feature.FSX_CSI_DRIVER: fsx_csi_driver_feature(iam, eks, pins, boundaries.service),
            Feature.KUBERAY_OPERATOR: kuberay_operator_feature(kubernetes, render, pins),
            Feature.TIERED_STORAGE: TieredStorage(iam, hyperpod, kubernetes, boundaries.workload),
            Feature.TRAINING_OPERATOR: TrainingOperator(
                eks, pins, JobIdentity(iam, eks, kubernetes, boundaries.workload)
            ),
            Feature.OBSERVABILITY: ObservabilityFeature(iam, eks, prometheus, pins, boundaries.service),
            Feature.INFERENCE_OPERATOR: inference_operator_feature(iam, eks, buckets, pins, boundaries.service),
            Feature.KARPENTER: Karpenter(iam, hyperpod, kubernetes, boundaries.autoscaling),
        }

    def facts(self, cluster_tag: str, region: str, account: str, eks_name: str, hyperpod_name: str) -> ClusterFacts:
        """Names come from the registry: an imported cluster keeps its own. Jobs run in the namespace of the
        cluster's storage claim, which the registry records."""
        record = self._registry.find(cluster_tag)
        eks = self._eks.find_cluster(eks_name)
        return ClusterFacts(
            cluster_tag=cluster_tag,
            deployment=self._deployment,
            region=region,
            account=account,
            eks_name=eks_name,
            eks=eks,
            hyperpod=self._hyperpod.find_cluster(hyperpod_name),
            job_namespace=job_namespace(record.storageClaim if record is not None else None),
            schedulable_node=cache(partial(self._schedulable_node, eks, region)),
        )

    def live(self, facts: ClusterFacts) -> dict[Feature, FeatureState]:
        return {feature: handler.probe(facts) for feature, handler in self._features.items()}

    def ensure(self, feature: Feature, ctx: FeatureChangesInput) -> PollState:
        change = ctx.features.of(feature)
        facts = self._facts(ctx)
        done = self._features[feature].ensure(facts, change, first_attempt=ctx.poll is None)
        return self._poll_state(ctx, done, feature, "enabled")

    def remove(self, feature: Feature, ctx: UpdateClusterFeaturesInput) -> PollState:
        done = self._features[feature].remove(self._facts(ctx))
        return self._poll_state(ctx, done, feature, "removed")

    def delete_identities(self, ctx: DeleteEksClusterInput, order: tuple[Feature, ...]) -> dict[str, str]:
        """Cluster deletion, after the clusters are deleted (or released, when imported): what features created
        outside them (IAM roles and policies, buckets) goes too. Each feature's own removal does it, seeing no
        cluster, so that teardown and disable cannot drift apart."""
        facts = ClusterFacts(
            cluster_tag=ctx.clusterTag,
            deployment=self._deployment,
            region=ctx.region,
            account=ctx.accountId,
            eks_name=ctx.eksClusterName,
            eks=None,
            hyperpod=None,
            # Without a cluster, no Kubernetes object is touched: only the features' IAM and buckets go.
            job_namespace=DEFAULT_JOB_NAMESPACE,
            schedulable_node=lambda: False,
        )
        for feature in order:
            self._features[feature].remove(facts)
        return {"released": ", ".join(feature.value for feature in order)}

    def _schedulable_node(self, eks: EksCluster | None, region: str) -> bool:
        return eks is not None and eks.status == "ACTIVE" and schedulable(self._kubernetes.nodes(eks, region))

    def _facts(self, ctx: WorkflowState) -> ClusterFacts:
        return self.facts(ctx.clusterTag, ctx.region, ctx.accountId, ctx.eksClusterName, ctx.hyperPodClusterName)

    def _poll_state(self, ctx: WorkflowState, done: bool, feature: Feature, goal: str) -> PollState:
        wait = Wait(f"{feature.value} to be {goal}", deadlines.FEATURE_SETTLED)
        return self._poll.poll(ctx, wait, done=done, status=goal if done else "settling")
