"""Managed Karpenter autoscaling: its request checks, what it builds, and how it is ensured and removed.

A ClusterRole HyperPod assumes to add and delete nodes, AutoScaling Karpenter on the HyperPod cluster with that
role, then a HyperpodNodeClass over the chosen instance groups and a NodePool using it; removal goes in reverse.
"""

from __future__ import annotations

from typing import Any

from controlplane.core.features.declaration import FeatureDeclaration, FeaturePorts
from controlplane.core.features.facts import HALF_BUILT, SETTLED_CLUSTER_STATUS, ClusterFacts, labelled
from controlplane.core.identity import VERSION, service_trust
from controlplane.core.naming import (
    KARPENTER_OBJECT_NAME,
    KARPENTER_POLICY_NAME,
    feature_labels,
    feature_tags,
    is_owned,
    karpenter_role_name,
    owner,
)
from controlplane.core.ports.hyperpod import HyperPodCluster, HyperPodGateway, InstanceGroup
from controlplane.core.ports.iam import IamGateway, IamRole
from controlplane.core.ports.kubernetes import KubernetesGateway
from controlplane.models.errors import (
    ClusterNotReadyError,
    DependencyFailedError,
    ForeignResourceError,
    InvalidRequestError,
)
from controlplane.models.features import Feature, FeatureChange, FeatureState, KarpenterFeature

HYPERPOD_PRINCIPAL = "hyperpod.sagemaker.amazonaws.com"
KARPENTER_AUTOSCALING = {"Mode": "Enable", "AutoScalerType": "Karpenter"}
NODE_CLASS_API_VERSION = "karpenter.sagemaker.amazonaws.com/v1"
NODE_CLASS_KIND = "HyperpodNodeClass"
NODE_CLASS_PLURAL = "hyperpodnodeclasses"
NODE_POOL_API_VERSION = "karpenter.sh/v1"
NODE_POOL_KIND = "NodePool"
NODE_POOL_PLURAL = "nodepools"


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
    metadata = {"name": KARPENTER_OBJECT_NAME, "labels": feature_labels(Feature.KARPENTER)}
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


class Karpenter:
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
            f"role {karpenter_role_name(facts.deployment, facts.cluster_tag)}": role is not None,
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
            message=None if complete or not resources else HALF_BUILT,
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
        name = karpenter_role_name(facts.deployment, facts.cluster_tag)
        if role is None:
            if (existing := self._iam.find_role(name)) is not None:
                raise ForeignResourceError(
                    f"IAM role {name} exists but was not created by InstantStart. {owner(existing.tags)}"
                )
            self._iam.create_role(
                name,
                service_trust(HYPERPOD_PRINCIPAL),
                feature_tags(facts.deployment, facts.cluster_tag, Feature.KARPENTER),
                self._boundary_arn,
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
        foreign = [kind for kind, obj in present.items() if not labelled(obj, Feature.KARPENTER)]
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
            self._iam.delete_role(karpenter_role_name(facts.deployment, facts.cluster_tag))
        return True

    def _role(self, facts: ClusterFacts) -> IamRole | None:
        role = self._iam.find_role(karpenter_role_name(facts.deployment, facts.cluster_tag))
        return role if role is not None and is_owned(facts.deployment, role.tags, facts.cluster_tag) else None

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
        return {kind: obj for kind, obj in self._kubernetes_objects(facts).items() if labelled(obj, Feature.KARPENTER)}


def check_karpenter_request(
    cluster_tag: str, wanted: KarpenterFeature, live: FeatureState, hyperpod: HyperPodCluster | None
) -> None:
    """The chosen groups exist and can be autoscaled; the cluster provisions continuously and recovers nodes."""
    if hyperpod is None:
        return
    groups = {group.name: group for group in hyperpod.groups}
    names = ", ".join(sorted(groups)) or "none"
    chosen = wanted.instanceGroups
    if chosen is None and live.state != "enabled" and not live.settings.get("instanceGroups"):
        raise InvalidRequestError(
            f'karpenter needs the instance groups it may scale: add "instanceGroups": [...] (this cluster\'s groups: '
            f"{names}).",
            {"feature": Feature.KARPENTER.value, "instanceGroups": sorted(groups)},
        )
    unknown = [name for name in chosen or [] if name not in groups]
    if unknown:
        raise InvalidRequestError(
            f"karpenter: no instance group {', '.join(unknown)} in cluster '{cluster_tag}'; its groups are: {names}.",
            {"feature": Feature.KARPENTER.value, "unknown": unknown, "instanceGroups": sorted(groups)},
        )
    unsupported = [f"{name} ({reason})" for name in chosen or [] for reason in karpenter_unsupported(groups[name])]
    if unsupported:
        raise InvalidRequestError(
            f"karpenter cannot scale {', '.join(unsupported)}: managed Karpenter scales only on-demand groups "
            "without training plans or deep health checks. Choose other groups.",
            {"feature": Feature.KARPENTER.value, "unsupported": unsupported},
        )
    require_karpenter_ready(hyperpod)


def karpenter_unsupported(group: InstanceGroup) -> list[str]:
    """Managed Karpenter scales only on-demand groups without training plans or deep health checks (AWS docs)."""
    reasons = {
        "uses a training plan": group.capacity_type == "training-plan",
        "runs deep health checks": group.deep_health_checks,
        "uses Spot capacity": group.capacity_type == "spot",
    }
    return [reason for reason, applies in reasons.items() if applies]


def _build(ports: FeaturePorts) -> Karpenter:
    return Karpenter(ports.iam, ports.hyperpod, ports.kubernetes, ports.boundaries.autoscaling)


FEATURE = FeatureDeclaration(
    Feature.KARPENTER,
    "IAM role trusted by HyperPod (BatchAdd/BatchDeleteClusterNodes on the cluster), AutoScaling Karpenter with that "
    "ClusterRole, HyperpodNodeClass and NodePool over the chosen instance groups",
    _build,
    needs_hyperpod=True,
    role=karpenter_role_name,
)
