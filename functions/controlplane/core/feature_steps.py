"""Each Advanced Feature's live state, and the workflow steps that ensure it (enable, update) or remove it.

Level-triggered: every call observes the account and the cluster, changes only the difference and says
whether the feature has settled; the workflow calls it again until it has. Whatever a feature creates
carries the cluster's ownership tags plus `instantstart:feature=<name>`, and removal deletes exactly
what the feature owns, so enable → disable leaves the account and the cluster as they were. Not here:
the diff of a PATCH and the dependency rules between features (`core.features`).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from controlplane.config import FeaturePins, ManifestPin
from controlplane.core.dependencies.steps import FAILED_ADDON_STATES, S3_CSI_ADDON
from controlplane.core.hyperpod import (
    POD_IDENTITY_PRINCIPAL,
    SAGEMAKER_PRINCIPAL,
    TRAINING_OPERATOR_NAMESPACE,
    TRAINING_OPERATOR_SERVICE_ACCOUNT,
)
from controlplane.core.identity import VERSION, service_statement, service_trust, web_identity_trust
from controlplane.core.naming import (
    is_owned,
    ownership_tags,
)
from controlplane.core.ports.eks import EksCluster, EksGateway
from controlplane.core.ports.hyperpod import HyperPodCluster, HyperPodGateway
from controlplane.core.ports.iam import IamGateway, IamRole
from controlplane.core.ports.kubernetes import KubernetesGateway, ManifestRenderer
from controlplane.core.ports.storage import BucketGateway
from controlplane.core.stack_settings import PollSettings
from controlplane.models.errors import (
    ClusterNotReadyError,
    DependencyFailedError,
    ForeignResourceError,
    InvalidRequestError,
    WaitTimeoutError,
)
from controlplane.models.features import Feature, FeatureChange, FeatureState, LiveState
from controlplane.models.workflow import (
    DeleteEksClusterInput,
    FeatureChangesInput,
    PollState,
    UpdateClusterFeaturesInput,
    WorkflowState,
)

FEATURE_TAG_KEY = "instantstart:feature"
# Kubernetes label keys cannot contain ':'; objects the features apply carry these labels instead.
MANAGED_LABEL = "app.kubernetes.io/managed-by"
FEATURE_LABEL = "instantstart.aws/feature"
ROLE_ARN_ANNOTATION = "eks.amazonaws.com/role-arn"

CERT_MANAGER_ADDON = "cert-manager"
METRICS_SERVER_ADDON = "metrics-server"
POD_IDENTITY_AGENT_ADDON = "eks-pod-identity-agent"
TRAINING_OPERATOR_ADDON = "amazon-sagemaker-hyperpod-training-operator"
FSX_CSI_ADDON = "aws-fsx-csi-driver"
FSX_CSI_NAMESPACE = "kube-system"
FSX_CSI_SERVICE_ACCOUNT = "fsx-csi-controller-sa"
FSX_CSI_POLICY_ARN = "arn:aws:iam::aws:policy/AmazonFSxFullAccess"
OBSERVABILITY_ADDON = "amazon-sagemaker-hyperpod-observability"
OBSERVABILITY_SERVICE_ACCOUNT = "hyperpod-observability-operator-otel-collector"
OBSERVABILITY_POLICY_ARNS = (
    "arn:aws:iam::aws:policy/AmazonPrometheusRemoteWriteAccess",
    "arn:aws:iam::aws:policy/CloudWatchAgentServerPolicy",
)
INFERENCE_OPERATOR_ADDON = "amazon-sagemaker-hyperpod-inference"
INFERENCE_OPERATOR_NAMESPACE = "hyperpod-inference-system"
INFERENCE_OPERATOR_SERVICE_ACCOUNT = "hyperpod-inference-controller-manager"
# AWS's policy for the operator; it grants the TLS certificate work on buckets named hyperpod-tls*.
INFERENCE_OPERATOR_POLICY_ARN = "arn:aws:iam::aws:policy/AmazonSageMakerHyperPodInferenceAccess"
# Add-ons the inference add-on needs ACTIVE that the dependencies stage installs (the others are features).
INFERENCE_STAGE3_ADDONS = (S3_CSI_ADDON, METRICS_SERVER_ADDON)
HYPERPOD_PRINCIPAL = "hyperpod.sagemaker.amazonaws.com"
KARPENTER_POLICY_NAME = "hyperpod-autoscaling"
KARPENTER_AUTOSCALING = {"Mode": "Enable", "AutoScalerType": "Karpenter"}
NODE_CLASS_API_VERSION = "karpenter.sagemaker.amazonaws.com/v1"
NODE_CLASS_KIND = "HyperpodNodeClass"
NODE_POOL_API_VERSION = "karpenter.sh/v1"
NODE_POOL_KIND = "NodePool"
KARPENTER_OBJECT_NAME = "instantstart"
TIERED_STORAGE_NAMESPACE = "default"
TIERED_STORAGE_SERVICE_ACCOUNT = "tiered-storage-sa"
SETTLED_CLUSTER_STATUS = "InService"
KUBERAY_BUNDLE = "kuberay-operator"


def feature_tags(cluster_tag: str, feature: Feature) -> dict[str, str]:
    return {**ownership_tags(cluster_tag), FEATURE_TAG_KEY: feature.value}


def fsx_csi_role_name(cluster_tag: str) -> str:
    return f"instantstart-{cluster_tag}-fsx-csi"


def observability_role_name(cluster_tag: str) -> str:
    return f"instantstart-{cluster_tag}-observability"


def inference_operator_role_name(cluster_tag: str) -> str:
    return f"instantstart-{cluster_tag}-inference"


def inference_tls_bucket_name(cluster_tag: str, account: str, region: str) -> str:
    """`hyperpod-tls-` prefix: AWS's inference policy grants the operator its certificate work on such buckets."""
    return f"hyperpod-tls-{cluster_tag}-{account}-{region}"


def karpenter_role_name(cluster_tag: str) -> str:
    return f"instantstart-{cluster_tag}-karpenter"


def karpenter_access(cluster_arn: str) -> dict[str, Any]:
    """What HyperPod needs to scale for Karpenter: add and delete nodes of this one cluster."""
    return {
        "Version": VERSION,
        "Statement": [
            {
                "Sid": "ScaleClusterNodes",
                "Effect": "Allow",
                "Action": ["sagemaker:BatchAddClusterNodes", "sagemaker:BatchDeleteClusterNodes"],
                "Resource": [cluster_arn],
            }
        ],
    }


def karpenter_objects(groups: list[str]) -> list[dict[str, Any]]:
    """The HyperpodNodeClass over the chosen groups and the NodePool that provisions from it."""
    labels = {MANAGED_LABEL: "instantstart", FEATURE_LABEL: Feature.KARPENTER.value}
    metadata = {"name": KARPENTER_OBJECT_NAME, "labels": labels}
    return [
        {
            "apiVersion": NODE_CLASS_API_VERSION,
            "kind": NODE_CLASS_KIND,
            "metadata": metadata,
            "spec": {"instanceGroups": list(groups)},
        },
        {
            "apiVersion": NODE_POOL_API_VERSION,
            "kind": NODE_POOL_KIND,
            "metadata": metadata,
            "spec": {
                "template": {
                    "spec": {
                        "nodeClassRef": {
                            "group": NODE_CLASS_API_VERSION.split("/")[0],
                            "kind": NODE_CLASS_KIND,
                            "name": KARPENTER_OBJECT_NAME,
                        },
                        "expireAfter": "Never",
                        "requirements": [{"key": "node.kubernetes.io/instance-type", "operator": "Exists"}],
                    }
                }
            },
        },
    ]


def tiered_storage_role_name(cluster_tag: str) -> str:
    return f"instantstart-{cluster_tag}-tiered-ckpt"


def tiered_storage_policy_name(cluster_tag: str) -> str:
    return f"instantstart-{cluster_tag}-tiered-ckpt"


def tiered_storage_access(cluster_tag: str) -> dict[str, Any]:
    """What a checkpointing training pod needs: the cluster's data buckets, metrics and its own logs."""
    buckets = f"arn:aws:s3:::instantstart-{cluster_tag}-*"
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
                "Resource": ["arn:aws:logs:*:*:log-group:/aws/sagemaker/checkpointing/*"],
            },
        ],
    }


@dataclass(frozen=True)
class ClusterFacts:
    """What every feature reads first: the cluster's EKS control plane and HyperPod cluster."""

    cluster_tag: str
    region: str
    account: str
    eks_name: str
    eks: EksCluster | None
    hyperpod: HyperPodCluster | None

    @property
    def kubernetes(self) -> EksCluster | None:
        return self.eks if self.eks is not None and self.eks.status == "ACTIVE" else None

    def require_kubernetes(self) -> EksCluster:
        if self.kubernetes is None:
            raise ClusterNotReadyError(f"EKS cluster {self.eks_name} is not ACTIVE.")
        return self.kubernetes

    def require_hyperpod(self) -> HyperPodCluster:
        if self.hyperpod is None:
            raise ClusterNotReadyError(
                f"Cluster '{self.cluster_tag}' has no HyperPod cluster; create it (stage 4) before this feature."
            )
        return self.hyperpod


class _Feature(Protocol):
    def probe(self, facts: ClusterFacts) -> FeatureState: ...

    def ensure(self, facts: ClusterFacts, change: FeatureChange, first_attempt: bool) -> bool:
        """Change what differs; True once the feature is fully in place and settled."""

    def remove(self, facts: ClusterFacts) -> bool:
        """Delete what the feature owns; True once it is all gone."""


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
        poll: PollSettings,
        workload_boundary_arn: str,
        buckets: BucketGateway,
        autoscaling_boundary_arn: str,
    ) -> None:
        self._eks = eks
        self._hyperpod = hyperpod
        self._poll = poll
        self._features: dict[Feature, _Feature] = {
            Feature.CERT_MANAGER: _AddonFeature(eks, Feature.CERT_MANAGER, CERT_MANAGER_ADDON, pins),
            Feature.FSX_CSI_DRIVER: _AddonFeature(
                eks,
                Feature.FSX_CSI_DRIVER,
                FSX_CSI_ADDON,
                pins,
                role=_AddonRole(iam, fsx_csi_role_name, (FSX_CSI_POLICY_ARN,), irsa=FSX_CSI_SERVICE_ACCOUNT),
            ),
            Feature.KUBERAY_OPERATOR: _ManifestFeature(
                kubernetes, render, Feature.KUBERAY_OPERATOR, KUBERAY_BUNDLE, pins.manifests[KUBERAY_BUNDLE]
            ),
            Feature.TIERED_STORAGE: _TieredStorage(iam, hyperpod, kubernetes, workload_boundary_arn),
            Feature.TRAINING_OPERATOR: _AddonFeature(
                eks,
                Feature.TRAINING_OPERATOR,
                TRAINING_OPERATOR_ADDON,
                pins,
                precondition=self._training_operator_identity,
            ),
            Feature.OBSERVABILITY: _AddonFeature(
                eks,
                Feature.OBSERVABILITY,
                OBSERVABILITY_ADDON,
                pins,
                precondition=self._pod_identity_agent,
                role=_AddonRole(
                    iam, observability_role_name, OBSERVABILITY_POLICY_ARNS, pod_identity=OBSERVABILITY_SERVICE_ACCOUNT
                ),
            ),
            Feature.INFERENCE_OPERATOR: _AddonFeature(
                eks,
                Feature.INFERENCE_OPERATOR,
                INFERENCE_OPERATOR_ADDON,
                pins,
                precondition=self._inference_prerequisites,
                role=_AddonRole(
                    iam,
                    inference_operator_role_name,
                    (INFERENCE_OPERATOR_POLICY_ARN,),
                    irsa=INFERENCE_OPERATOR_SERVICE_ACCOUNT,
                    namespace=INFERENCE_OPERATOR_NAMESPACE,
                    service=SAGEMAKER_PRINCIPAL,
                ),
                bucket=_AddonBucket(buckets, inference_tls_bucket_name),
                configure=_inference_configuration,
            ),
            Feature.KARPENTER: _Karpenter(iam, hyperpod, kubernetes, autoscaling_boundary_arn),
        }

    def facts(self, cluster_tag: str, region: str, account: str, eks_name: str, hyperpod_name: str) -> ClusterFacts:
        """Names come from the registry: an imported cluster keeps its own."""
        return ClusterFacts(
            cluster_tag=cluster_tag,
            region=region,
            account=account,
            eks_name=eks_name,
            eks=self._eks.find_cluster(eks_name),
            hyperpod=self._hyperpod.find_cluster(hyperpod_name),
        )

    def live(self, facts: ClusterFacts) -> dict[Feature, FeatureState]:
        return {feature: handler.probe(facts) for feature, handler in self._features.items()}

    def addon_status(self, facts: ClusterFacts, addon: str) -> str | None:
        found = self._eks.find_addon(facts.eks_name, addon) if facts.eks is not None else None
        return found.status if found else None

    # --- workflow steps ----------------------------------------------------------------------

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
            region=ctx.region,
            account=ctx.accountId,
            eks_name=ctx.eksClusterName,
            eks=None,
            hyperpod=None,
        )
        for feature in order:
            self._features[feature].remove(facts)
        return {"released": ", ".join(feature.value for feature in order)}

    def _facts(self, ctx: WorkflowState) -> ClusterFacts:
        return self.facts(ctx.clusterTag, ctx.region, ctx.accountId, ctx.eksClusterName, ctx.hyperPodClusterName)

    def _poll_state(self, ctx: WorkflowState, done: bool, feature: Feature, goal: str) -> PollState:
        attempts = ctx.attempt()
        if not done and attempts >= self._poll.max_attempts:
            raise WaitTimeoutError(f"{feature.value} is still not {goal} after {attempts} checks.")
        return PollState(
            done=done, attempts=attempts, waitSeconds=self._poll.wait_seconds, status=goal if done else "settling"
        )

    def _pod_identity_agent(self, facts: ClusterFacts) -> None:
        """Pod identity needs the agent (stage 3) and, for HyperPod add-ons, the HyperPod cluster."""
        facts.require_hyperpod()
        if self._eks.find_addon(facts.eks_name, POD_IDENTITY_AGENT_ADDON) is None:
            raise ClusterNotReadyError(
                f"The {POD_IDENTITY_AGENT_ADDON} add-on is missing; run or resume the dependencies stage (POST "
                f"/clusters/{facts.cluster_tag}/dependencies) first."
            )

    def _training_operator_identity(self, facts: ClusterFacts) -> None:
        """The operator's pod identity (stage 4) and the pod identity agent (stage 3) must be there."""
        self._pod_identity_agent(facts)
        role = self._eks.pod_identity_role(
            facts.eks_name, TRAINING_OPERATOR_NAMESPACE, TRAINING_OPERATOR_SERVICE_ACCOUNT
        )
        if role is None:
            raise ClusterNotReadyError(
                f"The training operator's pod identity association ({TRAINING_OPERATOR_NAMESPACE}/"
                f"{TRAINING_OPERATOR_SERVICE_ACCOUNT}) is missing; resume the HyperPod stage that creates it."
            )

    def _inference_prerequisites(self, facts: ClusterFacts) -> None:
        """The add-on reports to the HyperPod cluster and needs the stage 3 storage and metrics add-ons ACTIVE
        (cert-manager and the FSx CSI driver are features of their own, required by the dependency rules)."""
        facts.require_hyperpod()
        missing = [
            addon
            for addon in INFERENCE_STAGE3_ADDONS
            if (found := self._eks.find_addon(facts.eks_name, addon)) is None or found.status != "ACTIVE"
        ]
        if missing:
            raise ClusterNotReadyError(
                f"The inference operator needs the add-ons {', '.join(missing)} ACTIVE; run or resume the "
                f"dependencies stage (POST /clusters/{facts.cluster_tag}/dependencies) first."
            )


def _inference_configuration(facts: ClusterFacts, role_arn: str | None, bucket: str | None) -> dict[str, Any]:
    """configurationValues of the inference add-on: its execution role, TLS bucket and HyperPod cluster."""
    return {
        "executionRoleArn": role_arn,
        "tlsCertificateS3Bucket": bucket,
        "hyperpodClusterArn": facts.require_hyperpod().arn,
    }


# --- EKS add-on features -------------------------------------------------------------------------


class _AddonRole:
    """The IAM role an add-on's service account uses: IRSA (through the cluster's OIDC provider, which the
    dependencies stage creates) or an EKS Pod Identity association owned by the add-on."""

    def __init__(
        self,
        iam: IamGateway,
        name: Callable[[str], str],
        policy_arns: tuple[str, ...],
        *,
        irsa: str | None = None,
        pod_identity: str | None = None,
        namespace: str = FSX_CSI_NAMESPACE,
        service: str | None = None,
    ) -> None:
        self._iam = iam
        self._name = name
        self.policy_arns = policy_arns
        self.irsa = irsa
        self.pod_identity = pod_identity
        self._namespace = namespace
        # An AWS service that also assumes the role, limited to the cluster's account and Region.
        self._service = service

    def name(self, facts: ClusterFacts) -> str:
        return self._name(facts.cluster_tag)

    def find(self, facts: ClusterFacts) -> str | None:
        role = self._iam.find_role(self.name(facts))
        return role.arn if role is not None and is_owned(role.tags, facts.cluster_tag) else None

    def ensure(self, facts: ClusterFacts, feature: Feature) -> str:
        name = self.name(facts)
        role = self._iam.find_role(name)
        if role is None:
            role = self._iam.create_role(name, self._trust(facts), feature_tags(facts.cluster_tag, feature))
        elif not is_owned(role.tags, facts.cluster_tag):
            raise ForeignResourceError(f"IAM role {name} exists but was not created by InstantStart.")
        for policy in self.policy_arns:
            if policy not in role.attached_policy_arns:
                self._iam.attach_policy(name, policy)
        return role.arn

    def remove(self, facts: ClusterFacts) -> None:
        if self.find(facts) is not None:
            self._iam.delete_role(self.name(facts))

    def _trust(self, facts: ClusterFacts) -> dict[str, Any]:
        if self.irsa is None:
            return service_trust(POD_IDENTITY_PRINCIPAL, ("sts:AssumeRole", "sts:TagSession"))
        issuer = facts.require_kubernetes().oidc_issuer
        provider = self._iam.find_oidc_provider(issuer) if issuer else None
        if issuer is None or provider is None:
            raise ClusterNotReadyError(
                f"EKS cluster {facts.eks_name} has no IAM OIDC provider; run or resume the dependencies stage first."
            )
        trust = web_identity_trust(provider, issuer, self._namespace, self.irsa)
        if self._service is not None:
            partition = facts.require_kubernetes().arn.split(":")[1]
            source = f"arn:{partition}:{self._service.split('.')[0]}:{facts.region}:{facts.account}:*"
            trust["Statement"].append(service_statement(self._service, source))
        return trust


class _AddonBucket:
    """An S3 bucket an add-on writes to: created (private, encrypted, TLS-only, tagged) before the add-on, and
    emptied and deleted after it, only when the tags say it is this cluster's."""

    def __init__(self, buckets: BucketGateway, name: Callable[[str, str, str], str]) -> None:
        self._buckets = buckets
        self._name = name

    def name(self, facts: ClusterFacts) -> str:
        return self._name(facts.cluster_tag, facts.account, facts.region)

    def find(self, facts: ClusterFacts) -> str | None:
        tags = self._buckets.bucket_tags(self.name(facts))
        return self.name(facts) if tags is not None and is_owned(tags, facts.cluster_tag) else None

    def ensure(self, facts: ClusterFacts, feature: Feature) -> str:
        name = self.name(facts)
        tags = self._buckets.bucket_tags(name)
        if tags is None:
            self._buckets.create_bucket(name, feature_tags(facts.cluster_tag, feature))
        elif not is_owned(tags, facts.cluster_tag):
            raise ForeignResourceError(f"S3 bucket {name} exists but was not created by InstantStart for this cluster.")
        return name

    def remove(self, facts: ClusterFacts) -> None:
        if self.find(facts) is not None:
            self._buckets.delete_bucket(self.name(facts))


class _AddonFeature:
    """A feature that is one EKS add-on at a pinned version, with the IAM role it may need."""

    def __init__(
        self,
        eks: EksGateway,
        feature: Feature,
        addon: str,
        pins: FeaturePins,
        precondition: Callable[[ClusterFacts], None] | None = None,
        role: _AddonRole | None = None,
        bucket: _AddonBucket | None = None,
        configure: Callable[[ClusterFacts, str | None, str | None], dict[str, Any]] | None = None,
    ) -> None:
        """`configure` builds the add-on's configurationValues from the role and bucket ARN/name; a role then
        reaches the add-on through them, not through serviceAccountRoleArn."""
        self._eks = eks
        self._feature = feature
        self._addon = addon
        self._version = pins.addons[addon]
        self._precondition = precondition
        self._role = role
        self._bucket = bucket
        self._configure = configure

    def probe(self, facts: ClusterFacts) -> FeatureState:
        found = self._eks.find_addon(facts.eks_name, self._addon) if facts.eks is not None else None
        role = self._role.find(facts) if self._role is not None else None
        bucket = self._bucket.find(facts) if self._bucket is not None else None
        resources = (
            ([f"add-on {self._addon}"] if found else [])
            + ([f"role {role.rsplit('/', 1)[-1]}"] if role else [])
            + ([f"bucket {bucket}"] if bucket else [])
        )
        settings: dict[str, str | int | list[str] | None] = {"tlsCertificateBucket": bucket} if self._bucket else {}
        if found is None:
            state: LiveState = "partial" if role or bucket else "disabled"
            return FeatureState(enabled=False, state=state, settings=settings, resources=resources)
        complete = (
            found.status not in FAILED_ADDON_STATES
            and (self._role is None or role is not None)
            and (self._bucket is None or bucket is not None)
        )
        owned = is_owned(found.tags, facts.cluster_tag)
        return FeatureState(
            enabled=complete,
            state="enabled" if complete else "partial",
            status=found.status,
            settings={"version": found.version, **settings},
            resources=resources,
            message=None if owned else "Installed outside InstantStart: the control plane will not remove it.",
        )

    def ensure(self, facts: ClusterFacts, change: FeatureChange, first_attempt: bool) -> bool:
        if self._precondition is not None:
            self._precondition(facts)
        role_arn = self._role.ensure(facts, self._feature) if self._role is not None else None
        bucket = self._bucket.ensure(facts, self._feature) if self._bucket is not None else None
        found = self._eks.find_addon(facts.eks_name, self._addon)
        if found is not None and found.status in FAILED_ADDON_STATES:
            if first_attempt and is_owned(found.tags, facts.cluster_tag):
                # A failed install from an earlier run: replace it rather than leave it half-built.
                self._eks.delete_addon(facts.eks_name, self._addon)
                return False
            raise DependencyFailedError(
                f"Add-on {self._addon} is {found.status}: {'; '.join(found.issues) or 'no health details'}. "
                "Fix the cause, then resume the operation (the failed add-on is replaced), or disable the feature."
            )
        if found is None:
            pod_identity = self._role.pod_identity if self._role is not None else None
            configuration = self._configure(facts, role_arn, bucket) if self._configure is not None else None
            irsa = self._role is not None and self._role.irsa is not None and configuration is None
            self._eks.create_addon(
                facts.eks_name,
                self._addon,
                self._version,
                role_arn if irsa else None,
                feature_tags(facts.cluster_tag, self._feature),
                configuration=json.dumps(configuration, sort_keys=True) if configuration is not None else None,
                pod_identities={pod_identity: role_arn} if pod_identity and role_arn else None,
            )
            return False
        return found.status == "ACTIVE"

    def remove(self, facts: ClusterFacts) -> bool:
        found = self._eks.find_addon(facts.eks_name, self._addon) if facts.eks is not None else None
        if found is not None:
            if not is_owned(found.tags, facts.cluster_tag):
                raise ForeignResourceError(
                    f"Add-on {self._addon} was installed outside InstantStart; remove it yourself if you mean to."
                )
            if found.status != "DELETING":
                self._eks.delete_addon(facts.eks_name, self._addon)
            return False
        # The role and bucket go last: the add-on (and the associations it owns) must be gone first. The bucket
        # holds only the certificates the operator wrote for its endpoints, which go with it: it is emptied.
        if self._role is not None:
            self._role.remove(facts)
        if self._bucket is not None:
            self._bucket.remove(facts)
        return True


# --- Kubernetes manifests ------------------------------------------------------------------------


class _ManifestFeature:
    """A feature that is a versioned bundle of Kubernetes objects, applied with server-side apply."""

    def __init__(
        self,
        kubernetes: KubernetesGateway,
        render: ManifestRenderer,
        feature: Feature,
        bundle: str,
        pin: ManifestPin,
    ) -> None:
        self._kubernetes = kubernetes
        self._feature = feature
        self._objects = render(bundle, pin.file, {"image": pin.image})

    def probe(self, facts: ClusterFacts) -> FeatureState:
        present = self._present(facts)
        ours = [name for name, obj in present.items() if self._ours(obj)]
        complete = len(ours) == len(self._objects)
        return FeatureState(
            enabled=complete,
            state="enabled" if complete else "partial" if ours else "disabled",
            resources=ours,
            message=None if len(ours) == len(present) else "Some objects exist that InstantStart did not create.",
        )

    def ensure(self, facts: ClusterFacts, change: FeatureChange, first_attempt: bool) -> bool:
        cluster = facts.require_kubernetes()
        foreign = [name for name, obj in self._present(facts).items() if not self._ours(obj)]
        if foreign:
            raise ForeignResourceError(
                f"{', '.join(foreign)} already exist without InstantStart's labels; remove them, then resume."
            )
        self._kubernetes.apply(cluster, facts.region, self._objects)
        return True

    def remove(self, facts: ClusterFacts) -> bool:
        if facts.kubernetes is None:
            return True
        present = self._present(facts)
        owned = [obj for obj in self._objects if self._ours(present.get(_describe(obj)))]
        self._kubernetes.delete(facts.kubernetes, facts.region, owned)
        return True

    def _present(self, facts: ClusterFacts) -> dict[str, dict[str, Any]]:
        if facts.kubernetes is None:
            return {}
        found = {}
        for obj in self._objects:
            metadata = obj["metadata"]
            live = self._kubernetes.get(
                facts.kubernetes,
                facts.region,
                obj["apiVersion"],
                obj["kind"],
                metadata["name"],
                metadata.get("namespace"),
            )
            if live is not None:
                found[_describe(obj)] = live
        return found

    def _ours(self, obj: dict[str, Any] | None) -> bool:
        labels = (obj or {}).get("metadata", {}).get("labels") or {}
        return labels.get(FEATURE_LABEL) == self._feature.value


def _describe(obj: dict[str, Any]) -> str:
    metadata = obj["metadata"]
    namespace = metadata.get("namespace")
    return f"{obj['kind']} {namespace + '/' if namespace else ''}{metadata['name']}"


# --- tiered checkpointing ------------------------------------------------------------------------


class _TieredStorage:
    """TieredStorageConfig on the HyperPod cluster, and the IRSA chain its training pods use:
    OIDC provider → IAM policy → role trusting one ServiceAccount → that ServiceAccount, annotated."""

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
        role = self._iam.find_role(tiered_storage_role_name(facts.cluster_tag))
        account = self._service_account(facts)
        annotated = (
            role is not None
            and account is not None
            and (account.get("metadata", {}).get("annotations") or {}).get(ROLE_ARN_ANNOTATION) == role.arn
        )
        chain = {
            "TieredStorageConfig Mode=Enable": on_cluster,
            f"policy {tiered_storage_policy_name(facts.cluster_tag)}": policy is not None,
            f"role {tiered_storage_role_name(facts.cluster_tag)}": role is not None,
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
            resources=present + (["OIDC provider"] if provider else []),
            message=None if complete or not present else "Half-built: enable again to finish it, or disable it.",
        )

    def ensure(self, facts: ClusterFacts, change: FeatureChange, first_attempt: bool) -> bool:
        hyperpod = facts.require_hyperpod()
        kubernetes = facts.require_kubernetes()
        issuer = kubernetes.oidc_issuer
        if not issuer:
            raise ClusterNotReadyError(f"EKS cluster {kubernetes.name} has no OIDC issuer.")
        tags = feature_tags(facts.cluster_tag, Feature.TIERED_STORAGE)
        provider = self._iam.find_oidc_provider(issuer) or self._iam.create_oidc_provider(issuer, tags)
        policy = self._iam.find_policy(self._policy_arn(facts))
        if policy is None:
            policy_arn = self._iam.create_policy(
                tiered_storage_policy_name(facts.cluster_tag), tiered_storage_access(facts.cluster_tag), tags
            )
        elif not is_owned(policy.tags, facts.cluster_tag):
            raise ForeignResourceError(f"IAM policy {policy.name} exists but was not created by InstantStart.")
        else:
            policy_arn = policy.arn
        name = tiered_storage_role_name(facts.cluster_tag)
        role = self._iam.find_role(name)
        if role is None:
            trust = web_identity_trust(provider, issuer, TIERED_STORAGE_NAMESPACE, TIERED_STORAGE_SERVICE_ACCOUNT)
            role = self._iam.create_role(name, trust, tags, self._workload_boundary_arn or None)
        elif not is_owned(role.tags, facts.cluster_tag):
            raise ForeignResourceError(f"IAM role {name} exists but was not created by InstantStart.")
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
        if facts.kubernetes is not None and self._ours(self._service_account(facts)):
            self._kubernetes.delete(facts.kubernetes, facts.region, [self._account_object(None)])
        name = tiered_storage_role_name(facts.cluster_tag)
        role = self._iam.find_role(name)
        if role is not None and is_owned(role.tags, facts.cluster_tag):
            self._iam.delete_role(name)
        policy = self._iam.find_policy(self._policy_arn(facts))
        if policy is not None and is_owned(policy.tags, facts.cluster_tag):
            self._iam.delete_policy(policy.arn)
        issuer = facts.eks.oidc_issuer if facts.eks else None
        provider = self._iam.find_oidc_provider(issuer) if issuer else None
        if provider is not None:
            tags = self._iam.oidc_provider_tags(provider)
            if is_owned(tags, facts.cluster_tag) and tags.get(FEATURE_TAG_KEY) == Feature.TIERED_STORAGE.value:
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
        return f"arn:aws:iam::{facts.account}:policy/{tiered_storage_policy_name(facts.cluster_tag)}"

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

    @staticmethod
    def _ours(account: dict[str, Any] | None) -> bool:
        labels = (account or {}).get("metadata", {}).get("labels") or {}
        return labels.get(FEATURE_LABEL) == Feature.TIERED_STORAGE.value

    def _ensure_service_account(self, facts: ClusterFacts, kubernetes: EksCluster, role_arn: str) -> None:
        account = self._service_account(facts)
        if account is not None and not self._ours(account):
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
            "labels": {MANAGED_LABEL: "instantstart", FEATURE_LABEL: Feature.TIERED_STORAGE.value},
        }
        if role_arn:
            metadata["annotations"] = {ROLE_ARN_ANNOTATION: role_arn}
        return {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": metadata}


# --- managed Karpenter autoscaling ---------------------------------------------------------------


def require_karpenter_ready(hyperpod: HyperPodCluster) -> None:
    """Managed Karpenter runs on continuous provisioning and replaces failed nodes itself."""
    settings = hyperpod.settings
    if settings.get("NodeProvisioningMode") != "Continuous" or settings.get("NodeRecovery") != "Automatic":
        raise ClusterNotReadyError(
            f"karpenter needs the HyperPod cluster {hyperpod.name} to provision continuously with automatic node "
            f"recovery (it has NodeProvisioningMode {settings.get('NodeProvisioningMode') or 'unset'}, NodeRecovery "
            f"{settings.get('NodeRecovery') or 'unset'}). Clusters this control plane creates have both; set "
            "NodeRecovery Automatic on this one first.",
            {"feature": Feature.KARPENTER.value},
        )


class _Karpenter:
    """AutoScaling (Karpenter) on the HyperPod cluster with a ClusterRole HyperPod assumes to add and delete
    nodes, then a HyperpodNodeClass over the chosen instance groups and a NodePool using it. Disabling deletes
    the two objects, turns AutoScaling off and deletes the role. HyperPod offers no way to clear ClusterRole,
    so the cluster keeps naming the (deleted) role until autoscaling is enabled again with the same role name."""

    def __init__(
        self, iam: IamGateway, hyperpod: HyperPodGateway, kubernetes: KubernetesGateway, boundary_arn: str
    ) -> None:
        self._iam = iam
        self._hyperpod = hyperpod
        self._kubernetes = kubernetes
        # The role's inline policy can never exceed this boundary (node batch actions on HyperPod clusters).
        self._boundary_arn = boundary_arn

    def probe(self, facts: ClusterFacts) -> FeatureState:
        settings = facts.hyperpod.settings if facts.hyperpod else {}
        autoscaling = settings.get("AutoScaling") or {}
        role = self._role(facts)
        present = self._present(facts)
        node_class = present.get(NODE_CLASS_KIND)
        groups = list((node_class or {}).get("spec", {}).get("instanceGroups") or [])
        chain = {
            "AutoScaling Karpenter": autoscaling.get("Mode") == "Enable",
            f"role {karpenter_role_name(facts.cluster_tag)}": role is not None,
            f"{NODE_CLASS_KIND} {KARPENTER_OBJECT_NAME}": node_class is not None,
            f"{NODE_POOL_KIND} {KARPENTER_OBJECT_NAME}": NODE_POOL_KIND in present,
        }
        complete = (
            all(chain.values())
            and role is not None
            and settings.get("ClusterRole") == role.arn
            and autoscaling.get("Status") == SETTLED_CLUSTER_STATUS
        )
        resources = [name for name, exists in chain.items() if exists]
        return FeatureState(
            enabled=complete,
            state="enabled" if complete else "partial" if resources else "disabled",
            status=autoscaling.get("Status"),
            settings={"instanceGroups": groups or None, "roleArn": role.arn if role else None},
            resources=resources,
            message=None if complete or not resources else "Half-built: enable again to finish it, or disable it.",
        )

    def ensure(self, facts: ClusterFacts, change: FeatureChange, first_attempt: bool) -> bool:
        hyperpod = facts.require_hyperpod()
        kubernetes = facts.require_kubernetes()
        require_karpenter_ready(hyperpod)
        groups = change.instanceGroups or []
        missing = [name for name in groups if hyperpod.group(name) is None]
        if not groups or missing:
            raise InvalidRequestError(
                f"karpenter: instance groups {', '.join(missing) or '(none given)'} are not in cluster "
                f"{hyperpod.name}; change the request's instanceGroups and try again."
            )
        role = self._role(facts)
        name = karpenter_role_name(facts.cluster_tag)
        if role is None:
            if self._iam.find_role(name) is not None:
                raise ForeignResourceError(f"IAM role {name} exists but was not created by InstantStart.")
            self._iam.create_role(
                name,
                service_trust(HYPERPOD_PRINCIPAL),
                feature_tags(facts.cluster_tag, Feature.KARPENTER),
                self._boundary_arn or None,
            )
            # A new role takes a moment to be assumable: HyperPod is given it in the next round.
            self._iam.put_role_policy(name, KARPENTER_POLICY_NAME, karpenter_access(hyperpod.arn))
            return False
        if self._iam.role_policy(name, KARPENTER_POLICY_NAME) != karpenter_access(hyperpod.arn):
            self._iam.put_role_policy(name, KARPENTER_POLICY_NAME, karpenter_access(hyperpod.arn))
        autoscaling = hyperpod.settings.get("AutoScaling") or {}
        configured = {key: autoscaling.get(key) for key in KARPENTER_AUTOSCALING} == KARPENTER_AUTOSCALING
        cluster_role = hyperpod.settings.get("ClusterRole")
        if autoscaling.get("Mode") == "Enable" and cluster_role != role.arn:
            # HyperPod refuses a new ClusterRole while autoscaling is on.
            raise ForeignResourceError(
                f"Autoscaling on {hyperpod.name} was enabled outside InstantStart (ClusterRole {cluster_role}); "
                "disable it there first, then enable karpenter here."
            )
        if not configured:
            self._hyperpod.update_settings(
                hyperpod.name, {"ClusterRole": role.arn, "AutoScaling": dict(KARPENTER_AUTOSCALING)}
            )
            return False
        if autoscaling.get("Status") == "Failed":
            raise DependencyFailedError(
                f"HyperPod autoscaling on {hyperpod.name} failed: {autoscaling.get('FailureMessage') or 'no details'}. "
                "Fix the cause, then resume the operation, or disable karpenter."
            )
        if autoscaling.get("Status") != SETTLED_CLUSTER_STATUS:
            return False
        present = self._kubernetes_objects(facts)
        foreign = [kind for kind, obj in present.items() if not _labelled(obj, Feature.KARPENTER)]
        if foreign:
            raise ForeignResourceError(
                f"{', '.join(foreign)} {KARPENTER_OBJECT_NAME} already exist without InstantStart's labels; remove "
                "them, then resume."
            )
        node_class = present.get(NODE_CLASS_KIND)
        current = list((node_class or {}).get("spec", {}).get("instanceGroups") or [])
        if node_class is None or current != groups or NODE_POOL_KIND not in present:
            self._kubernetes.apply(kubernetes, facts.region, karpenter_objects(groups))
        return True

    def remove(self, facts: ClusterFacts) -> bool:
        present = self._present(facts)
        if present and facts.kubernetes is not None:
            # The NodePool first: Karpenter stops provisioning before its node class goes.
            ours = [obj for obj in reversed(karpenter_objects([])) if obj["kind"] in present]
            self._kubernetes.delete(facts.kubernetes, facts.region, ours)
        hyperpod = facts.hyperpod
        if hyperpod is not None:
            autoscaling = hyperpod.settings.get("AutoScaling") or {}
            if autoscaling.get("Mode") == "Enable":
                self._hyperpod.update_settings(hyperpod.name, {"AutoScaling": {"Mode": "Disable"}})
                return False
            if autoscaling and autoscaling.get("Status") != SETTLED_CLUSTER_STATUS:
                return False
        # The role goes last: HyperPod may use it until autoscaling is off.
        if self._role(facts) is not None:
            self._iam.delete_role(karpenter_role_name(facts.cluster_tag))
        return True

    def _role(self, facts: ClusterFacts) -> IamRole | None:
        role = self._iam.find_role(karpenter_role_name(facts.cluster_tag))
        return role if role is not None and is_owned(role.tags, facts.cluster_tag) else None

    def _kubernetes_objects(self, facts: ClusterFacts) -> dict[str, dict[str, Any]]:
        """The NodeClass and NodePool of our name, whoever made them (kinds absent while AutoScaling is off)."""
        if facts.kubernetes is None:
            return {}
        found = {}
        for obj in karpenter_objects([]):
            live = self._kubernetes.get(
                facts.kubernetes, facts.region, obj["apiVersion"], obj["kind"], KARPENTER_OBJECT_NAME
            )
            if live is not None:
                found[obj["kind"]] = live
        return found

    def _present(self, facts: ClusterFacts) -> dict[str, dict[str, Any]]:
        return {kind: obj for kind, obj in self._kubernetes_objects(facts).items() if _labelled(obj, Feature.KARPENTER)}


def _labelled(obj: dict[str, Any], feature: Feature) -> bool:
    return ((obj.get("metadata") or {}).get("labels") or {}).get(FEATURE_LABEL) == feature.value
