"""The workflow's entry points into the features (`FeatureSteps`): ensure or remove one feature, and delete
what the features created outside the clusters when a cluster is deleted.

Each call reads the cluster's facts, runs the feature's own level-triggered ensure or remove (one module per
feature in `catalog`, built as its declaration says) and turns its answer into the poll state the workflow's wait
loop reads. Not here: the diff of a PATCH and the dependency rules (`core.features.panel`).
"""

from __future__ import annotations

from functools import cache, partial

from controlplane.core import deadlines
from controlplane.core.dependencies.addons import schedulable
from controlplane.core.features.catalog import CATALOG
from controlplane.core.features.declaration import FeaturePorts
from controlplane.core.features.facts import ClusterFacts, FeatureHandler
from controlplane.core.naming import DEFAULT_JOB_NAMESPACE, Deployment, job_namespace
from controlplane.core.polling import Poller, Wait
from controlplane.core.ports.eks import EksCluster
from controlplane.core.ports.persistence import ClusterRegistry
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

    def __init__(self, ports: FeaturePorts, poll: Poller, deployment: Deployment, registry: ClusterRegistry) -> None:
        self._deployment = deployment
        self._registry = registry
        self._eks = ports.eks
        self._hyperpod = ports.hyperpod
        self._poll = poll
        self._kubernetes = ports.kubernetes
        self._features: dict[Feature, FeatureHandler] = {
            feature: spec.build(ports) for feature, spec in CATALOG.items()
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
