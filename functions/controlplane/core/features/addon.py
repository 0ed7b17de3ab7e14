"""A feature that is one EKS add-on at a pinned version (`AddonFeature`), with the IAM role (`AddonRole`) and
the S3 bucket (`AddonBucket`) it may need, and the pod identity precondition HyperPod add-ons share. The version is
the pin, or the lowest newer one the cluster's Kubernetes version allows; an add-on that runs Deployments on a
cluster without a schedulable node is installed and waits for nodes, as in stage 3 (`core.dependencies.addons`).

Everything created carries the feature's tags; removal deletes only what they say is this cluster's, the
add-on first and its role and bucket after it. Not here: which add-ons are features (one module each).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from controlplane.config import FeaturePins
from controlplane.core.dependencies.addons import Health, addon_health, failed, resolve_version
from controlplane.core.features.facts import ClusterFacts
from controlplane.core.identity import POD_IDENTITY_PRINCIPAL, service_statement, service_trust, web_identity_trust
from controlplane.core.naming import Deployment, feature_tags, is_owned, owner
from controlplane.core.ports.eks import EksGateway
from controlplane.core.ports.iam import IamGateway
from controlplane.core.ports.storage import BucketGateway
from controlplane.models.errors import ClusterNotReadyError, ForeignResourceError
from controlplane.models.features import Feature, FeatureChange, FeatureState, LiveState

POD_IDENTITY_AGENT_ADDON = "eks-pod-identity-agent"
ADDON_NAMESPACE = "kube-system"


class AddonRole:
    """The IAM role an add-on's service account uses: IRSA (through the cluster's OIDC provider, which the
    dependencies stage creates) or an EKS Pod Identity association owned by the add-on."""

    def __init__(
        self,
        iam: IamGateway,
        name: Callable[[Deployment, str], str],
        policies: tuple[str, ...],
        *,
        boundary_arn: str,
        irsa: str | None = None,
        pod_identity: str | None = None,
        namespace: str = ADDON_NAMESPACE,
        service: str | None = None,
    ) -> None:
        self._iam = iam
        # The role's ceiling: the stack's boundary for roles AWS services and operators assume.
        self._boundary_arn = boundary_arn
        self._name = name
        # AWS managed policies, by name (their ARNs depend on the partition).
        self.policies = policies
        self.irsa = irsa
        self.pod_identity = pod_identity
        self._namespace = namespace
        # An AWS service that also assumes the role, limited to the cluster's account and Region.
        self._service = service

    def name(self, facts: ClusterFacts) -> str:
        return self._name(facts.deployment, facts.cluster_tag)

    def find(self, facts: ClusterFacts) -> str | None:
        role = self._iam.find_role(self.name(facts))
        return role.arn if role is not None and is_owned(facts.deployment, role.tags, facts.cluster_tag) else None

    def ensure(self, facts: ClusterFacts, feature: Feature) -> str:
        name = self.name(facts)
        role = self._iam.find_role(name)
        if role is None:
            role = self._iam.create_role(
                name, self._trust(facts), feature_tags(facts.deployment, facts.cluster_tag, feature), self._boundary_arn
            )
        elif not is_owned(facts.deployment, role.tags, facts.cluster_tag):
            raise ForeignResourceError(
                f"IAM role {name} exists but was not created by InstantStart. {owner(role.tags)}"
            )
        for policy in self.policies:
            policy_arn = facts.deployment.managed_policy_arn(policy)
            if policy_arn not in role.attached_policy_arns:
                self._iam.attach_policy(name, policy_arn)
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
            service = self._service.split(".")[0]
            source = f"arn:{facts.deployment.partition}:{service}:{facts.region}:{facts.account}:*"
            trust["Statement"].append(service_statement(self._service, source))
        return trust


class AddonBucket:
    """An S3 bucket an add-on writes to: created (private, encrypted, TLS-only, tagged) before the add-on, and
    emptied and deleted after it, only when the tags say it is this cluster's."""

    def __init__(self, buckets: BucketGateway, name: Callable[[str, str, str], str]) -> None:
        self._buckets = buckets
        self._name = name

    def name(self, facts: ClusterFacts) -> str:
        return self._name(facts.cluster_tag, facts.account, facts.region)

    def find(self, facts: ClusterFacts) -> str | None:
        tags = self._buckets.bucket_tags(self.name(facts))
        return self.name(facts) if tags is not None and is_owned(facts.deployment, tags, facts.cluster_tag) else None

    def ensure(self, facts: ClusterFacts, feature: Feature) -> str:
        name = self.name(facts)
        tags = self._buckets.bucket_tags(name)
        if tags is None:
            self._buckets.create_bucket(name, feature_tags(facts.deployment, facts.cluster_tag, feature))
        elif not is_owned(facts.deployment, tags, facts.cluster_tag):
            raise ForeignResourceError(
                f"S3 bucket {name} exists but was not created by InstantStart for this cluster. {owner(tags)}"
            )
        return name

    def remove(self, facts: ClusterFacts) -> None:
        if self.find(facts) is not None:
            self._buckets.delete_bucket(self.name(facts))


class AddonFeature:
    """A feature that is one EKS add-on at a pinned version, with the IAM role and bucket it may need."""

    def __init__(
        self,
        eks: EksGateway,
        feature: Feature,
        addon: str,
        pins: FeaturePins,
        precondition: Callable[[ClusterFacts], None] | None = None,
        role: AddonRole | None = None,
        bucket: AddonBucket | None = None,
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
        health = addon_health(found, facts.schedulable_node).health
        complete = (
            health != Health.FAILED
            and (self._role is None or role is not None)
            and (self._bucket is None or bucket is not None)
        )
        owned = is_owned(facts.deployment, found.tags, facts.cluster_tag)
        waits = "Installed, waiting for a node its pods can run on." if health == Health.WAITING_FOR_NODES else None
        return FeatureState(
            enabled=complete,
            state="enabled" if complete else "partial",
            status=found.status,
            settings={"version": found.version, **settings},
            resources=resources,
            message=waits if owned else "Installed outside InstantStart: the control plane will not remove it.",
        )

    def ensure(self, facts: ClusterFacts, change: FeatureChange, first_attempt: bool) -> bool:
        if self._precondition is not None:
            self._precondition(facts)
        role_arn = self._role.ensure(facts, self._feature) if self._role is not None else None
        bucket = self._bucket.ensure(facts, self._feature) if self._bucket is not None else None
        found = self._eks.find_addon(facts.eks_name, self._addon)
        if found is None:
            pod_identity = self._role.pod_identity if self._role is not None else None
            configuration = self._configure(facts, role_arn, bucket) if self._configure is not None else None
            irsa = self._role is not None and self._role.irsa is not None and configuration is None
            self._eks.create_addon(
                facts.eks_name,
                self._addon,
                resolve_version(self._eks, self._addon, self._version, facts.require_kubernetes().version),
                role_arn if irsa else None,
                feature_tags(facts.deployment, facts.cluster_tag, self._feature),
                configuration=json.dumps(configuration, sort_keys=True) if configuration is not None else None,
                pod_identities={pod_identity: role_arn} if pod_identity and role_arn else None,
            )
            return False
        health = addon_health(found, facts.schedulable_node)
        if health.health == Health.FAILED:
            if first_attempt and is_owned(facts.deployment, found.tags, facts.cluster_tag):
                # A failed install from an earlier run: replace it rather than leave it half-built.
                self._eks.delete_addon(facts.eks_name, self._addon)
                return False
            raise failed(
                health,
                "Fix the cause, then resume the operation (the failed add-on is replaced), or disable the feature.",
            )
        return health.health in (Health.ACTIVE, Health.WAITING_FOR_NODES)

    def remove(self, facts: ClusterFacts) -> bool:
        found = self._eks.find_addon(facts.eks_name, self._addon) if facts.eks is not None else None
        if found is not None:
            if not is_owned(facts.deployment, found.tags, facts.cluster_tag):
                raise ForeignResourceError(
                    f"Add-on {self._addon} was installed outside InstantStart; remove it yourself if you mean to. "
                    f"{owner(found.tags)}"
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


def require_pod_identity_agent(eks: EksGateway, facts: ClusterFacts) -> None:
    """Pod identity needs the agent (stage 3) and, for HyperPod add-ons, the HyperPod cluster."""
    facts.require_hyperpod()
    if eks.find_addon(facts.eks_name, POD_IDENTITY_AGENT_ADDON) is None:
        raise ClusterNotReadyError(
            f"The {POD_IDENTITY_AGENT_ADDON} add-on is missing; run or resume the dependencies stage (POST "
            f"/clusters/{facts.cluster_tag}/dependencies) first."
        )
