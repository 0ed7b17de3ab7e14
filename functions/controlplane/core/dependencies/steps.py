"""Stage 3 steps: what HyperPod needs inside an EKS cluster before CreateCluster.

The IAM OIDC provider of the cluster, the EKS add-ons (pod identity agent, Mountpoint for S3 CSI
driver with its own IRSA role, cert-manager, metrics-server) at the pinned versions, and the HyperPod
dependencies applied with server-side apply: what the HyperPod Helm chart installs for resiliency (deep health
checks, health-monitoring agent, job auto-restart, patching RBAC) and the NVIDIA, Neuron and EFA device plugins.
Every method observes first and changes only what differs.
"""

from __future__ import annotations

from controlplane.config import DependencyPins
from controlplane.core import deadlines
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
    DependencyFailedError,
    ForeignResourceError,
    ResourceNotReadyError,
)
from controlplane.models.workflow import DeleteEksClusterInput, PollState, WorkflowState

S3_CSI_ADDON = "aws-mountpoint-s3-csi-driver"
S3_CSI_NAMESPACE = "kube-system"
S3_CSI_SERVICE_ACCOUNT = "s3-csi-driver-sa"
HYPERPOD_DEPENDENCIES = "hyperpod-dependencies"
FAILED_ADDON_STATES = {"CREATE_FAILED", "DEGRADED", "UPDATE_FAILED", "DELETE_FAILED"}


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
        name = ctx.eksClusterName
        role = self._iam.find_role(s3_csi_role_name(self._deployment, ctx.clusterTag))
        result = {}
        for addon, version in self._pins.addons.items():
            found = self._eks.find_addon(name, addon)
            if found is None:
                role_arn = role.arn if addon == S3_CSI_ADDON and role else None
                found = self._eks.create_addon(
                    name, addon, version, role_arn, ownership_tags(self._deployment, ctx.clusterTag)
                )
            result[addon] = found.status
        return result

    def check_addons(self, ctx: WorkflowState) -> PollState:
        name = ctx.eksClusterName
        statuses = {}
        for addon in self._pins.addons:
            found = self._eks.find_addon(name, addon)
            if found is None:
                raise ResourceNotReadyError(f"Add-on {addon} is missing; 'Ensure Addons' must run first.")
            if found.status in FAILED_ADDON_STATES:
                raise DependencyFailedError(
                    f"Add-on {addon} is {found.status}: {'; '.join(found.issues) or 'no health details'}. "
                    "Fix the cause (see the add-on in the EKS console), then resume the operation."
                )
            statuses[addon] = found.status
        waiting = sorted(addon for addon, status in statuses.items() if status != "ACTIVE")
        wait = Wait(f"the add-ons of {name} to be ACTIVE", deadlines.ADDONS_ACTIVE)
        status = "ACTIVE" if not waiting else f"waiting for {', '.join(waiting)}"
        return self._poll.poll(ctx, wait, done=not waiting, status=status)

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


def _issuer(cluster: EksCluster) -> str:
    if not cluster.oidc_issuer:
        raise ResourceNotReadyError(f"EKS cluster {cluster.name} has no OIDC issuer yet.")
    return cluster.oidc_issuer
