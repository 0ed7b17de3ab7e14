"""Managed tiered checkpointing: TieredStorageConfig on the HyperPod cluster, and the IRSA chain its training
pods use (OIDC provider → IAM policy → role trusting one ServiceAccount → that ServiceAccount, annotated).

Closed both ways: enabling finishes a half-built chain, disabling removes exactly the links this feature owns
(the OIDC provider only when this feature created it), then turns the setting off.
"""

from __future__ import annotations

from typing import Any

from controlplane.core.features.declaration import FeatureDeclaration, FeaturePorts, Kept
from controlplane.core.features.facts import (
    HALF_BUILT,
    SETTLED_CLUSTER_STATUS,
    ClusterFacts,
    labelled,
)
from controlplane.core.identity import VERSION, web_identity_trust
from controlplane.core.naming import (
    FEATURE_TAG_KEY,
    TIERED_STORAGE_NAMESPACE,
    TIERED_STORAGE_SERVICE_ACCOUNT,
    Deployment,
    feature_labels,
    feature_tags,
    is_owned,
    managed_bucket_pattern,
    owner,
    tiered_storage_policy_name,
    tiered_storage_role_name,
)
from controlplane.core.ports.eks import EksCluster
from controlplane.core.ports.hyperpod import HyperPodGateway
from controlplane.core.ports.iam import IamGateway
from controlplane.core.ports.kubernetes import KubernetesGateway
from controlplane.models.errors import ClusterNotReadyError, ForeignResourceError
from controlplane.models.features import Feature, FeatureChange, FeatureState

ROLE_ARN_ANNOTATION = "eks.amazonaws.com/role-arn"


def tiered_storage_access(deployment: Deployment, cluster_tag: str) -> dict[str, Any]:
    """What a checkpointing training pod needs: the cluster's data buckets, metrics and its own logs."""
    buckets = deployment.bucket_arn(managed_bucket_pattern(cluster_tag))
    return {
        "Version": VERSION,
        "Statement": [
            {"Sid": "ListBuckets", "Effect": "Allow", "Action": ["s3:ListBucket"], "Resource": [buckets]},
            {
                "Sid": "ReadWriteCheckpoints",
                "Effect": "Allow",
                "Action": ["s3:GetObject", "s3:PutObject", "s3:DeleteObject", "s3:AbortMultipartUpload"],
                "Resource": [f"{buckets}/*"],
            },
            {"Sid": "Metrics", "Effect": "Allow", "Action": ["cloudwatch:PutMetricData"], "Resource": ["*"]},
            {
                "Sid": "Logs",
                "Effect": "Allow",
                "Action": ["logs:CreateLogGroup", "logs:CreateLogStream", "logs:PutLogEvents"],
                "Resource": [f"arn:{deployment.partition}:logs:*:*:log-group:/aws/sagemaker/checkpointing/*"],
            },
        ],
    }


class TieredStorage:
    """The chain above; its role is created within the stack's permissions boundary for workload roles."""

    def __init__(
        self, iam: IamGateway, hyperpod: HyperPodGateway, kubernetes: KubernetesGateway, workload_boundary_arn: str
    ) -> None:
        self._iam = iam
        self._hyperpod = hyperpod
        self._kubernetes = kubernetes
        self._workload_boundary_arn = workload_boundary_arn

    def probe(self, facts: ClusterFacts) -> FeatureState:
        config = (facts.hyperpod.settings.get("TieredStorageConfig") if facts.hyperpod else None) or {}
        on_cluster = config.get("Mode") == "Enable"
        issuer = facts.eks.oidc_issuer if facts.eks else None
        provider = self._iam.find_oidc_provider(issuer) if issuer else None
        policy = self._iam.find_policy(self._policy_arn(facts))
        role = self._iam.find_role(tiered_storage_role_name(facts.deployment, facts.cluster_tag))
        account = self._service_account(facts)
        annotated = (
            role is not None
            and account is not None
            and (account.get("metadata", {}).get("annotations") or {}).get(ROLE_ARN_ANNOTATION) == role.arn
        )
        chain = {
            "TieredStorageConfig Mode=Enable": on_cluster,
            f"policy {tiered_storage_policy_name(facts.deployment, facts.cluster_tag)}": policy is not None,
            f"role {tiered_storage_role_name(facts.deployment, facts.cluster_tag)}": role is not None,
            f"ServiceAccount {TIERED_STORAGE_NAMESPACE}/{TIERED_STORAGE_SERVICE_ACCOUNT}": account is not None,
        }
        complete = all(chain.values()) and provider is not None and annotated
        present = [name for name, exists in chain.items() if exists]
        percentage = config.get("InstanceMemoryAllocationPercentage") if on_cluster else None
        return FeatureState(
            enabled=complete,
            state="enabled" if complete else "partial" if present else "disabled",
            status=facts.hyperpod.status if facts.hyperpod else None,
            settings={
                "configMode": ("custom" if percentage is not None else "default") if on_cluster else None,
                "percentage": percentage,
                "serviceAccount": f"{TIERED_STORAGE_NAMESPACE}/{TIERED_STORAGE_SERVICE_ACCOUNT}",
                "roleArn": role.arn if role else None,
            },
            # The provider is the cluster's (the dependencies stage's): part of this feature only beside its chain.
            resources=present + (["OIDC provider"] if provider and present else []),
            message=None if complete or not present else HALF_BUILT,
        )

    def ensure(self, facts: ClusterFacts, change: FeatureChange, first_attempt: bool) -> bool:
        hyperpod = facts.require_hyperpod()
        kubernetes = facts.require_kubernetes()
        issuer = kubernetes.oidc_issuer
        if not issuer:
            raise ClusterNotReadyError(f"EKS cluster {kubernetes.name} has no OIDC issuer.")
        tags = feature_tags(facts.deployment, facts.cluster_tag, Feature.TIERED_STORAGE)
        provider = self._iam.find_oidc_provider(issuer) or self._iam.create_oidc_provider(issuer, tags)
        policy = self._iam.find_policy(self._policy_arn(facts))
        if policy is None:
            policy_arn = self._iam.create_policy(
                tiered_storage_policy_name(facts.deployment, facts.cluster_tag),
                tiered_storage_access(facts.deployment, facts.cluster_tag),
                tags,
            )
        elif not is_owned(facts.deployment, policy.tags, facts.cluster_tag):
            raise ForeignResourceError(
                f"IAM policy {policy.name} exists but was not created by InstantStart. {owner(policy.tags)}"
            )
        else:
            policy_arn = policy.arn
        name = tiered_storage_role_name(facts.deployment, facts.cluster_tag)
        role = self._iam.find_role(name)
        if role is None:
            trust = web_identity_trust(provider, issuer, TIERED_STORAGE_NAMESPACE, TIERED_STORAGE_SERVICE_ACCOUNT)
            role = self._iam.create_role(name, trust, tags, self._workload_boundary_arn)
        elif not is_owned(facts.deployment, role.tags, facts.cluster_tag):
            raise ForeignResourceError(
                f"IAM role {name} exists but was not created by InstantStart. {owner(role.tags)}"
            )
        if policy_arn not in role.attached_policy_arns:
            self._iam.attach_policy(name, policy_arn)
        self._ensure_service_account(facts, kubernetes, role.arn)
        wanted: dict[str, Any] = {"Mode": "Enable"}
        if change.percentage is not None:
            wanted["InstanceMemoryAllocationPercentage"] = change.percentage
        if hyperpod.settings.get("TieredStorageConfig") != wanted:
            self._hyperpod.update_settings(hyperpod.name, {"TieredStorageConfig": wanted})
            return False
        return hyperpod.status == SETTLED_CLUSTER_STATUS

    def remove(self, facts: ClusterFacts) -> bool:
        if facts.kubernetes is not None and labelled(self._service_account(facts), Feature.TIERED_STORAGE):
            self._kubernetes.delete(facts.kubernetes, facts.region, [self._account_object(None)])
        name = tiered_storage_role_name(facts.deployment, facts.cluster_tag)
        role = self._iam.find_role(name)
        if role is not None and is_owned(facts.deployment, role.tags, facts.cluster_tag):
            self._iam.delete_role(name)
        policy = self._iam.find_policy(self._policy_arn(facts))
        if policy is not None and is_owned(facts.deployment, policy.tags, facts.cluster_tag):
            self._iam.delete_policy(policy.arn)
        issuer = facts.eks.oidc_issuer if facts.eks else None
        provider = self._iam.find_oidc_provider(issuer) if issuer else None
        if provider is not None:
            tags = self._iam.oidc_provider_tags(provider)
            if (
                is_owned(facts.deployment, tags, facts.cluster_tag)
                and tags.get(FEATURE_TAG_KEY) == Feature.TIERED_STORAGE.value
            ):
                self._iam.delete_oidc_provider(provider)
        if facts.hyperpod is None:
            return True
        config = facts.hyperpod.settings.get("TieredStorageConfig") or {}
        if config.get("Mode") == "Enable":
            self._hyperpod.update_settings(facts.hyperpod.name, {"TieredStorageConfig": {"Mode": "Disable"}})
            return False
        return facts.hyperpod.status == SETTLED_CLUSTER_STATUS

    @staticmethod
    def _policy_arn(facts: ClusterFacts) -> str:
        return facts.deployment.policy_arn(
            facts.account, tiered_storage_policy_name(facts.deployment, facts.cluster_tag)
        )

    def _service_account(self, facts: ClusterFacts) -> dict[str, Any] | None:
        if facts.kubernetes is None:
            return None
        return self._kubernetes.get(
            facts.kubernetes,
            facts.region,
            "v1",
            "ServiceAccount",
            TIERED_STORAGE_SERVICE_ACCOUNT,
            TIERED_STORAGE_NAMESPACE,
        )

    def _ensure_service_account(self, facts: ClusterFacts, kubernetes: EksCluster, role_arn: str) -> None:
        account = self._service_account(facts)
        if account is not None and not labelled(account, Feature.TIERED_STORAGE):
            raise ForeignResourceError(
                f"ServiceAccount {TIERED_STORAGE_NAMESPACE}/{TIERED_STORAGE_SERVICE_ACCOUNT} exists but was not "
                "created by InstantStart; delete or rename it, then resume."
            )
        annotations = ((account or {}).get("metadata", {}).get("annotations")) or {}
        if annotations.get(ROLE_ARN_ANNOTATION) != role_arn:
            self._kubernetes.apply(kubernetes, facts.region, [self._account_object(role_arn)])

    @staticmethod
    def _account_object(role_arn: str | None) -> dict[str, Any]:
        metadata: dict[str, Any] = {
            "name": TIERED_STORAGE_SERVICE_ACCOUNT,
            "namespace": TIERED_STORAGE_NAMESPACE,
            "labels": feature_labels(Feature.TIERED_STORAGE),
        }
        if role_arn:
            metadata["annotations"] = {ROLE_ARN_ANNOTATION: role_arn}
        return {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": metadata}


def _build(ports: FeaturePorts) -> TieredStorage:
    return TieredStorage(ports.iam, ports.hyperpod, ports.kubernetes, ports.boundaries.workload)


FEATURE = FeatureDeclaration(
    Feature.TIERED_STORAGE,
    "TieredStorageConfig on the HyperPod cluster; IAM policy and role (web identity through the EKS cluster's OIDC "
    "provider), ServiceAccount default/tiered-storage-sa annotated with the role",
    _build,
    needs_hyperpod=True,
    kept=(
        Kept(
            "IAM OIDC provider of the EKS cluster",
            "the dependencies stage created it and other IRSA roles (S3 and FSx CSI drivers, inference operator) "
            "trust it; it is deleted only if this feature created it",
        ),
    ),
    role=tiered_storage_role_name,
)
