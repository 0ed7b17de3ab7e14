"""Stage 3 steps: what HyperPod needs inside an EKS cluster before CreateCluster.

The IAM OIDC provider of the cluster, the EKS add-ons (pod identity agent, Mountpoint for S3 CSI
driver with its own IRSA role, cert-manager, metrics-server) at the pinned versions or the lowest newer ones the
cluster's Kubernetes version allows, and the HyperPod dependencies applied with server-side apply: what the HyperPod
Helm chart installs for resiliency (deep health checks, health-monitoring agent, job auto-restart, patching RBAC) and
the NVIDIA, Neuron and EFA device plugins. Every method observes first and changes only what differs.

A new cluster has no node before stage 4, so the add-ons that run Deployments (`core.dependencies.addons`) cannot
be ACTIVE in stage 3: stage 3 accepts them installed and waiting for nodes, and stage 4 proves every add-on ACTIVE
once its nodes have joined (`check_addons_healthy`).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import cache

from controlplane.config import DependencyPins
from controlplane.core import deadlines
from controlplane.core.dependencies.addons import (
    AddonHealth,
    Health,
    addon_health,
    failed,
    node_free_first,
    resolve_version,
    schedulable,
)
from controlplane.core.dependencies.plan import dependency_images
from controlplane.core.identity import s3_bucket_access, web_identity_trust
from controlplane.core.naming import (
    S3_CSI_POLICY_NAME,
    Deployment,
    is_owned,
    managed_bucket_pattern,
    owner,
    ownership_tags,
    s3_csi_role_name,
)
from controlplane.core.polling import Poller, Wait
from controlplane.core.ports.eks import EksCluster, EksGateway
from controlplane.core.ports.iam import IamGateway
from controlplane.core.ports.kubernetes import KubernetesGateway, ManifestRenderer
from controlplane.models.errors import (
    ForeignResourceError,
    ResourceNotReadyError,
)
from controlplane.models.workflow import DeleteEksClusterInput, PollState, WorkflowState

S3_CSI_ADDON = "aws-mountpoint-s3-csi-driver"
S3_CSI_NAMESPACE = "kube-system"
S3_CSI_SERVICE_ACCOUNT = "s3-csi-driver-sa"
HYPERPOD_DEPENDENCIES = "hyperpod-dependencies"
ADDON_REMEDY = "Fix the cause (see the add-on in the EKS console), then resume the operation."


class ClusterDependencyService:
    def __init__(
        self,
        iam: IamGateway,
        eks: EksGateway,
        kubernetes: KubernetesGateway,
        render: ManifestRenderer,
        pins: DependencyPins,
        poll: Poller,
        workload_boundary_arn: str,
        deployment: Deployment,
    ) -> None:
        self._workload_boundary_arn = workload_boundary_arn
        self._deployment = deployment
        self._iam = iam
        self._eks = eks
        self._kubernetes = kubernetes
        self._render = render
        self._pins = pins
        self._poll = poll

    def ensure_oidc_provider(self, ctx: WorkflowState) -> dict[str, str]:
        cluster = self._active_cluster(ctx)
        issuer = _issuer(cluster)
        arn = self._iam.find_oidc_provider(issuer)
        if arn is None:
            arn = self._iam.create_oidc_provider(issuer, ownership_tags(self._deployment, ctx.clusterTag))
            return {"oidcProviderArn": arn, "action": "created"}
        return {"oidcProviderArn": arn, "action": "found"}

    def ensure_s3_csi_driver_role(self, ctx: WorkflowState) -> dict[str, str]:
        cluster = self._active_cluster(ctx)
        issuer = _issuer(cluster)
        provider = self._iam.find_oidc_provider(issuer)
        if provider is None:
            raise ResourceNotReadyError(
                "The cluster's OIDC provider is missing; 'Ensure OIDC Provider' must run first."
            )
        name = s3_csi_role_name(self._deployment, ctx.clusterTag)
        role = self._iam.find_role(name)
        if role is None:
            trust = web_identity_trust(provider, issuer, S3_CSI_NAMESPACE, S3_CSI_SERVICE_ACCOUNT)
            role = self._iam.create_role(
                name, trust, ownership_tags(self._deployment, ctx.clusterTag), self._workload_boundary_arn
            )
        elif not is_owned(self._deployment, role.tags, ctx.clusterTag):
            raise ForeignResourceError(
                f"IAM role {name} exists but was not created by InstantStart for this cluster. {owner(role.tags)}"
            )
        wanted = s3_bucket_access(self._deployment, [managed_bucket_pattern(ctx.clusterTag)])
        if self._iam.role_policy(name, S3_CSI_POLICY_NAME) != wanted:
            self._iam.put_role_policy(name, S3_CSI_POLICY_NAME, wanted)
        return {"roleArn": role.arn}

    def ensure_addons(self, ctx: WorkflowState) -> dict[str, str]:
        """Create the missing add-ons, those that need no node first, each at its version for the cluster's
        Kubernetes version (`resolve_version`: the pin, or the lowest newer version EKS offers)."""
        cluster = self._active_cluster(ctx)
        role = self._iam.find_role(s3_csi_role_name(self._deployment, ctx.clusterTag))
        result = {}
        for addon, pin in node_free_first(self._pins.addons.items()):
            found = self._eks.find_addon(cluster.name, addon)
            if found is None:
                version = resolve_version(self._eks, addon, pin, cluster.version)
                role_arn = role.arn if addon == S3_CSI_ADDON and role else None
                found = self._eks.create_addon(
                    cluster.name, addon, version, role_arn, ownership_tags(self._deployment, ctx.clusterTag)
                )
            result[addon] = found.status
        return result

    def check_addons(self, ctx: WorkflowState) -> PollState:
        """Stage 3: poll until every add-on is ACTIVE, or installed and waiting for nodes (it runs a Deployment and the
        cluster has no node its pods could run on, as every new cluster before stage 4). A failed add-on fails."""
        cluster = self._active_cluster(ctx)
        healths = self._addon_healths(cluster, cache(lambda: schedulable(self._kubernetes.nodes(cluster, ctx.region))))
        ready = {Health.ACTIVE, Health.WAITING_FOR_NODES}
        settling = [health.addon.name for health in healths if health.health not in ready]
        status = f"waiting for {', '.join(settling)}" if settling else _summary(healths)
        wait = Wait(f"the add-ons of {cluster.name} to be ACTIVE (or to wait only for nodes)", deadlines.ADDONS_ACTIVE)
        return self._poll.poll(ctx, wait, done=not settling, status=status)

    def check_addons_healthy(self, ctx: WorkflowState) -> PollState:
        """Stage 4, once the HyperPod nodes have joined: poll until every stage-3 add-on is ACTIVE, those that waited
        for nodes included (their pods now start on the nodes). A failed add-on fails; one still short of replicas
        keeps the wait going until its deadline."""
        healths = self._addon_healths(self._active_cluster(ctx), None)
        waiting = [health.describe() for health in healths if health.health != Health.ACTIVE]
        status = f"waiting for {'; '.join(waiting)}" if waiting else _summary(healths)
        wait = Wait(
            f"the add-ons of {ctx.eksClusterName} to be ACTIVE on the new nodes (an add-on's pods need a Ready node "
            "without a NoSchedule taint they do not tolerate, and room on it)",
            deadlines.ADDONS_HEALTHY,
        )
        return self._poll.poll(ctx, wait, done=not waiting, status=status)

    def _addon_healths(self, cluster: EksCluster, schedulable_node: Callable[[], bool] | None) -> list[AddonHealth]:
        """The health of every stage-3 add-on, those that need no node first; a failed or missing one fails."""
        healths = []
        for addon, _ in node_free_first(self._pins.addons.items()):
            found = self._eks.find_addon(cluster.name, addon)
            if found is None:
                raise ResourceNotReadyError(
                    f"Add-on {addon} is missing from {cluster.name}; the dependencies stage ('Ensure Addons') "
                    "installs it."
                )
            health = addon_health(found, schedulable_node)
            if health.health == Health.FAILED:
                raise failed(health, ADDON_REMEDY)
            healths.append(health)
        return healths

    def apply_hyperpod_dependencies(self, ctx: WorkflowState) -> dict[str, str]:
        cluster = self._active_cluster(ctx)
        applied = self._kubernetes.apply(cluster, ctx.region, self.hyperpod_dependency_objects(ctx.region))
        return {"applied": ", ".join(applied)}

    def hyperpod_dependency_objects(self, region: str) -> list[dict[str, object]]:
        """The dependency manifests' objects, each image from the registry that serves `region`."""
        images = dependency_images(self._pins, region)
        objects = []
        for name, pin in self._pins.manifests.items():
            values = {"image": images[name]} if name in images else {}
            objects.extend(self._render(HYPERPOD_DEPENDENCIES, pin.file, values))
        return objects

    def delete_dependency_identities(self, ctx: DeleteEksClusterInput) -> dict[str, str]:
        """Remove the IAM identities stage 3 created (the add-ons go with the EKS cluster)."""
        deleted = []
        name = s3_csi_role_name(self._deployment, ctx.clusterTag)
        role = self._iam.find_role(name)
        if role is not None and is_owned(self._deployment, role.tags, ctx.clusterTag):
            self._iam.delete_role(name)
            deleted.append(f"role {name}")
        for arn in self._iam.list_oidc_providers():
            if is_owned(self._deployment, self._iam.oidc_provider_tags(arn), ctx.clusterTag):
                self._iam.delete_oidc_provider(arn)
                deleted.append("oidc provider")
        return {"deleted": ", ".join(deleted) or "nothing left"}

    def _active_cluster(self, ctx: WorkflowState) -> EksCluster:
        cluster = self._eks.find_cluster(ctx.eksClusterName)
        if cluster is None or cluster.status != "ACTIVE":
            raise ResourceNotReadyError(f"EKS cluster {ctx.eksClusterName} is not ACTIVE.")
        return cluster


def _summary(healths: list[AddonHealth]) -> str:
    """`ACTIVE: a, b; installed, waiting for nodes: c, d`."""
    groups = {
        state: [h.addon.name for h in healths if h.health == state]
        for state in (Health.ACTIVE, Health.WAITING_FOR_NODES)
    }
    return "; ".join(f"{state.value}: {', '.join(names)}" for state, names in groups.items() if names)


def _issuer(cluster: EksCluster) -> str:
    if not cluster.oidc_issuer:
        raise ResourceNotReadyError(f"EKS cluster {cluster.name} has no OIDC issuer yet.")
    return cluster.oidc_issuer
