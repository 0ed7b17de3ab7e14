"""Each Advanced Feature's live state, and the workflow steps that ensure it (enable, update) or remove it.

Level-triggered: every call observes the account and the cluster, changes only the difference and says
whether the feature has settled; the workflow calls it again until it has. Whatever a feature creates
carries the cluster's ownership tags plus `instantstart:feature=<name>`, and removal deletes exactly
what the feature owns, so enable → disable leaves the account and the cluster as they were. Not here:
the diff of a PATCH and the dependency rules between features (`core.features`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from controlplane.config import FeaturePins, ManifestPin
from controlplane.core.dependencies import FAILED_ADDON_STATES
from controlplane.core.hyperpod import (
    POD_IDENTITY_PRINCIPAL,
    TRAINING_OPERATOR_NAMESPACE,
    TRAINING_OPERATOR_SERVICE_ACCOUNT,
)
from controlplane.core.identity import VERSION, service_trust, web_identity_trust
from controlplane.core.naming import (
    hyperpod_cluster_of,
    is_owned,
    ownership_tags,
)
from controlplane.core.ports import (
    EksCluster,
    EksGateway,
    HyperPodCluster,
    HyperPodGateway,
    IamGateway,
    KubernetesGateway,
    ManifestRenderer,
)
from controlplane.core.stack_settings import PollSettings
from controlplane.models.errors import (
    ClusterNotReadyError,
    DependencyFailedError,
    ForeignResourceError,
    InvalidRequestError,
    WaitTimeoutError,
)
from controlplane.models.features import Feature, FeatureChange, FeatureChanges, FeatureState
from controlplane.models.workflow import PollState, WorkflowInput

FEATURE_TAG_KEY = "instantstart:feature"
# Kubernetes label keys cannot contain ':'; objects the features apply carry these labels instead.
MANAGED_LABEL = "app.kubernetes.io/managed-by"
FEATURE_LABEL = "instantstart.aws/feature"
ROLE_ARN_ANNOTATION = "eks.amazonaws.com/role-arn"

CERT_MANAGER_ADDON = "cert-manager"
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

    def ensure(self, feature: Feature, ctx: WorkflowInput) -> PollState:
        change = _changes(ctx).of(feature)
        facts = self._facts(ctx)
        done = self._features[feature].ensure(facts, change, first_attempt=ctx.poll is None)
        return self._poll_state(ctx, done, feature, "enabled")

    def remove(self, feature: Feature, ctx: WorkflowInput) -> PollState:
        done = self._features[feature].remove(self._facts(ctx))
        return self._poll_state(ctx, done, feature, "removed")

    def delete_identities(self, ctx: WorkflowInput, order: tuple[Feature, ...]) -> dict[str, str]:
        """Cluster deletion, after the clusters are deleted (or released, when imported): what features created
        outside them (IAM roles and policies, buckets) goes too. Each feature's own removal does it, seeing no
        cluster, so that teardown and disable cannot drift apart."""
        facts = ClusterFacts(
            cluster_tag=ctx.clusterTag,
            region=ctx.region,
            account=ctx.accountId or "",
            eks_name=ctx.eksClusterName,
            eks=None,
            hyperpod=None,
        )
        for feature in order:
            self._features[feature].remove(facts)
        return {"released": ", ".join(feature.value for feature in order)}

    def _facts(self, ctx: WorkflowInput) -> ClusterFacts:
        if not ctx.accountId:
            raise InvalidRequestError("The workflow input has no account id.")
        return self.facts(
            ctx.clusterTag,
            ctx.region,
            ctx.accountId,
            ctx.eksClusterName,
            hyperpod_cluster_of(ctx.clusterTag, ctx.hyperPodClusterName),
        )

    def _poll_state(self, ctx: WorkflowInput, done: bool, feature: Feature, goal: str) -> PollState:
        attempts = (ctx.poll.attempts if ctx.poll else 0) + 1
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


def _changes(ctx: WorkflowInput) -> FeatureChanges:
    if ctx.features is None:
        raise InvalidRequestError("The workflow input has no feature changes.")
    return ctx.features


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
    ) -> None:
        self._iam = iam
        self._name = name
        self.policy_arns = policy_arns
        self.irsa = irsa
        self.pod_identity = pod_identity
        self._namespace = namespace

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
        return web_identity_trust(provider, issuer, self._namespace, self.irsa)


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
    ) -> None:
        self._eks = eks
        self._feature = feature
        self._addon = addon
        self._version = pins.addons[addon]
        self._precondition = precondition
        self._role = role

    def probe(self, facts: ClusterFacts) -> FeatureState:
        found = self._eks.find_addon(facts.eks_name, self._addon) if facts.eks is not None else None
        role = self._role.find(facts) if self._role is not None else None
        resources = ([f"add-on {self._addon}"] if found else []) + ([f"role {role.rsplit('/', 1)[-1]}"] if role else [])
        if found is None:
            return FeatureState(enabled=False, state="partial" if role else "disabled", resources=resources)
        complete = found.status not in FAILED_ADDON_STATES and (self._role is None or role is not None)
        owned = is_owned(found.tags, facts.cluster_tag)
        return FeatureState(
            enabled=complete,
            state="enabled" if complete else "partial",
            status=found.status,
            settings={"version": found.version},
            resources=resources,
            message=None if owned else "Installed outside InstantStart: the control plane will not remove it.",
        )

    def ensure(self, facts: ClusterFacts, change: FeatureChange, first_attempt: bool) -> bool:
        if self._precondition is not None:
            self._precondition(facts)
        role_arn = self._role.ensure(facts, self._feature) if self._role is not None else None
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
            self._eks.create_addon(
                facts.eks_name,
                self._addon,
                self._version,
                role_arn if self._role is not None and self._role.irsa else None,
                feature_tags(facts.cluster_tag, self._feature),
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
        # The role goes last: the add-on (and the associations it owns) must be gone first.
        if self._role is not None:
            self._role.remove(facts)
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
