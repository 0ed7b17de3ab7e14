"""Adopting a cluster the control plane did not create: tag it, discover it, and release it on delete.

Import tags the EKS cluster (and its VPC, unless already tagged) `instantstart:cluster=<tag>` without the
managed-by marker: adopted resources are never ours to delete, and the tag is what the steps' IAM
conditions admit. Stage 1's "Ensure Access Entry" then gives the control plane's role access; the steps
here discover what stage 4 needs of the VPC and which stages are already done. On delete,
`release_imported_cluster` removes what the pipeline added inside the adopted cluster (Kubernetes
objects, add-ons, pod identity, access entry) and the adoption tags; the cluster itself stays.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from functools import cache
from typing import Any

from controlplane.core.dependencies.addons import Health, addon_health, schedulable
from controlplane.core.hyperpod_roles import TRAINING_OPERATOR_NAMESPACE, TRAINING_OPERATOR_SERVICE_ACCOUNT
from controlplane.core.naming import (
    CLUSTER_TAG_KEY,
    MANAGED_BY_KEY,
    Deployment,
    adoption_tags,
    is_owned,
    training_operator_role_name,
)
from controlplane.core.ports.eks import ControlPlaneAccess, EksCluster, EksGateway
from controlplane.core.ports.hyperpod import HyperPodGateway
from controlplane.core.ports.iam import IamGateway
from controlplane.core.ports.kubernetes import KubernetesGateway
from controlplane.core.ports.network import NetworkGateway, RouteTable
from controlplane.core.ports.persistence import Clock, ClusterRegistry
from controlplane.core.storage.namespace import SHARED_NAMESPACE, secret_reader_rbac
from controlplane.core.storage.objects import claim_objects, claim_reference
from controlplane.core.workload_access import workload_rbac
from controlplane.models.clusters import ClusterRecord, ImportedNetwork, StageName
from controlplane.models.errors import ClusterNotFoundError, ForeignResourceError, InvalidRequestError
from controlplane.models.workflow import DeleteEksClusterInput, ImportClusterInput, WorkflowState

DEFAULT_ROUTE = "0.0.0.0/0"
DEFAULT_CLAIM = ("default", "s3-claim")


class ClusterImportSteps:
    def __init__(
        self,
        registry: ClusterRegistry,
        network: NetworkGateway,
        eks: EksGateway,
        iam: IamGateway,
        hyperpod: HyperPodGateway,
        kubernetes: KubernetesGateway,
        dependency_objects: Callable[[str], list[dict[str, Any]]],
        addons: Iterable[str],
        access: ControlPlaneAccess,
        clock: Clock,
        deployment: Deployment,
    ) -> None:
        self._registry = registry
        self._network = network
        self._eks = eks
        self._iam = iam
        self._hyperpod = hyperpod
        self._kubernetes = kubernetes
        self._dependency_objects = dependency_objects
        self._addons = tuple(addons)
        self._access = access
        self._clock = clock
        self._deployment = deployment

    # --- import ------------------------------------------------------------------------------

    def tag_imported_cluster(self, ctx: ImportClusterInput) -> dict[str, str]:
        cluster = self._active_cluster(ctx)
        owner = cluster.tags.get(CLUSTER_TAG_KEY)
        if owner not in (None, ctx.clusterTag):
            raise ForeignResourceError(f"EKS cluster {cluster.name} is already registered as '{owner}'.")
        if owner is None:
            self._eks.tag_cluster(cluster.arn, adoption_tags(ctx.clusterTag))
        vpc = self._network.vpc(cluster.vpc_id) if cluster.vpc_id else None
        if vpc is None:
            raise InvalidRequestError(f"The VPC of EKS cluster {cluster.name} ({cluster.vpc_id}) does not exist.")
        if CLUSTER_TAG_KEY not in vpc.tags:
            self._network.tag_resource(vpc.vpc_id, adoption_tags(ctx.clusterTag))
        return {"clusterArn": cluster.arn, "vpcId": vpc.vpc_id}

    def discover_cluster_network(self, ctx: ImportClusterInput) -> dict[str, str]:
        """The VPC, the EKS cluster security group and the NAT gateway the EKS subnets route through."""
        cluster = self._active_cluster(ctx)
        vpc = self._network.vpc(cluster.vpc_id) if cluster.vpc_id else None
        group = cluster.cluster_security_group_id or next(iter(cluster.security_group_ids), None)
        if vpc is None or group is None:
            raise InvalidRequestError(
                f"EKS cluster {cluster.name} reports no VPC or security group; it cannot host HyperPod nodes."
            )
        network = ImportedNetwork(
            vpcId=vpc.vpc_id,
            vpcCidr=vpc.cidr,
            subnetIds=list(cluster.subnet_ids),
            securityGroupId=group,
            natGatewayId=_nat_egress(self._network.vpc_route_tables(vpc.vpc_id), cluster.subnet_ids),
        )
        record = self._record(ctx)
        self._registry.save(
            record.model_copy(update={"network": network, "vpcCidr": vpc.cidr, "updatedAt": self._clock.now()})
        )
        return {"vpcId": vpc.vpc_id, "securityGroupId": group, "natGatewayId": network.natGatewayId or "none"}

    def discover_cluster_stages(self, ctx: ImportClusterInput) -> dict[str, str]:
        """Which pipeline stages the cluster has already; those are recorded done and adopted (kept on delete)."""
        cluster = self._active_cluster(ctx)
        done = [StageName.EKS.value]
        if not self._missing_dependencies(cluster, ctx):
            done.append(StageName.DEPENDENCIES.value)
        record = self._record(ctx)
        if record.hyperPodClusterName:
            found = self._hyperpod.find_cluster(record.hyperPodClusterName)
            if found is not None and found.status == "InService":
                done.append(StageName.HYPERPOD.value)
        update: dict[str, object] = {"updatedAt": self._clock.now()}
        if self._kubernetes.present(cluster, ctx.region, [claim_reference(*DEFAULT_CLAIM)]):
            done.append(StageName.STORAGE.value)
            update["storageClaim"] = "/".join(DEFAULT_CLAIM)
        update.update(stagesDone=done, adopted=done)
        self._registry.save(record.model_copy(update=update))
        return {"stagesDone": ", ".join(done)}

    # --- delete ------------------------------------------------------------------------------

    def release_imported_cluster(self, ctx: DeleteEksClusterInput) -> dict[str, str]:
        """Remove what the pipeline added to an adopted cluster; a cluster we created went with its deletion."""
        if not ctx.imported:
            return {"released": "nothing (the cluster was ours and is deleted)"}
        record = self._registry.find(ctx.clusterTag)
        adopted = set(record.adopted) if record else set()
        cluster = self._eks.find_cluster(ctx.eksClusterName)
        released: list[str] = []
        if cluster is not None:
            entry_tags = self._eks.access_entry_tags(cluster.name, self._access.admin_role_arn)
            if entry_tags is not None:
                objects = self._added_objects(ctx, record, adopted)
                released += self._kubernetes.delete(cluster, ctx.region, objects) if objects else []
            for addon in self._addons:
                found = self._eks.find_addon(cluster.name, addon)
                if found is not None and is_owned(self._deployment, found.tags, ctx.clusterTag):
                    self._eks.delete_addon(cluster.name, addon)
                    released.append(f"add-on {addon}")
            if StageName.HYPERPOD.value not in adopted:
                role = self._eks.pod_identity_role(
                    cluster.name, TRAINING_OPERATOR_NAMESPACE, TRAINING_OPERATOR_SERVICE_ACCOUNT
                )
                if role is not None and role.endswith(
                    f":role/{training_operator_role_name(self._deployment, ctx.clusterTag)}"
                ):
                    self._eks.delete_pod_identity_association(
                        cluster.name, TRAINING_OPERATOR_NAMESPACE, TRAINING_OPERATOR_SERVICE_ACCOUNT
                    )
                    released.append("training operator pod identity")
            for entry in self._access.entries():
                tags = self._eks.access_entry_tags(cluster.name, entry.principal_arn)
                if tags is not None and is_owned(self._deployment, tags, ctx.clusterTag):
                    self._eks.delete_access_entry(cluster.name, entry.principal_arn)
                    released.append(f"access entry ({entry.grants})")
            if cluster.tags.get(CLUSTER_TAG_KEY) == ctx.clusterTag:
                self._eks.untag_cluster(cluster.arn, [CLUSTER_TAG_KEY])
                released.append("cluster tag")
        network = ctx.importedNetwork or (record.network if record else None)
        vpc = self._network.vpc(network.vpcId) if network else None
        if vpc is not None and vpc.tags.get(CLUSTER_TAG_KEY) == ctx.clusterTag and MANAGED_BY_KEY not in vpc.tags:
            self._network.untag_resource(vpc.vpc_id, [CLUSTER_TAG_KEY])
            released.append("vpc tag")
        return {"released": ", ".join(released) or "nothing left", "kept": f"EKS cluster {ctx.eksClusterName}"}

    # --- helpers -----------------------------------------------------------------------------

    def _added_objects(
        self, ctx: DeleteEksClusterInput, record: ClusterRecord | None, adopted: set[str]
    ) -> list[dict[str, Any]]:
        """The Kubernetes objects stages 3 and 5 applied (none of an adopted stage's; the FSx claim is always ours),
        and the workload writers' RBAC that came with the access entries."""
        objects: list[dict[str, Any]] = workload_rbac()
        if StageName.DEPENDENCIES.value not in adopted:
            objects += self._dependency_objects(ctx.region)
        if StageName.STORAGE.value not in adopted and record is not None and record.storageClaim:
            namespace, claim = record.storageClaim.split("/", 1)
            objects += claim_objects(ctx.clusterTag, namespace, claim)
            if namespace != SHARED_NAMESPACE:
                objects += secret_reader_rbac(namespace)
        if record is not None and record.fsxClaim:
            objects += claim_objects(ctx.clusterTag, *record.fsxClaim.split("/", 1))
        return objects

    def _missing_dependencies(self, cluster: EksCluster, ctx: WorkflowState) -> list[str]:
        missing = []
        if not cluster.oidc_issuer or self._iam.find_oidc_provider(cluster.oidc_issuer) is None:
            missing.append("IAM OIDC provider")
        # An add-on that runs Deployments on a cluster without nodes counts as installed: stage 4 proves it ACTIVE.
        nodes = cache(lambda: schedulable(self._kubernetes.nodes(cluster, ctx.region)))
        for addon in self._addons:
            found = self._eks.find_addon(cluster.name, addon)
            if found is None or addon_health(found, nodes).health not in (Health.ACTIVE, Health.WAITING_FOR_NODES):
                missing.append(f"add-on {addon}")
        wanted = [obj for obj in self._dependency_objects(ctx.region) if obj["kind"] == "DaemonSet"]
        present = set(self._kubernetes.present(cluster, ctx.region, wanted))
        missing += [f"DaemonSet {obj['metadata']['name']}" for obj in wanted if _key(obj) not in present]
        return missing

    def _active_cluster(self, ctx: WorkflowState) -> EksCluster:
        cluster = self._eks.find_cluster(ctx.eksClusterName)
        if cluster is None or cluster.status != "ACTIVE":
            raise InvalidRequestError(
                f"EKS cluster {ctx.eksClusterName} is {'gone' if cluster is None else cluster.status}; "
                "an imported cluster must exist and be ACTIVE."
            )
        return cluster

    def _record(self, ctx: WorkflowState) -> ClusterRecord:
        record = self._registry.find(ctx.clusterTag)
        if record is None:
            raise ClusterNotFoundError(f"Cluster '{ctx.clusterTag}' is no longer registered.")
        return record


def _key(obj: dict[str, Any]) -> str:
    metadata = obj["metadata"]
    namespace = metadata.get("namespace")
    return f"{obj['kind']}/{namespace + '/' if namespace else ''}{metadata['name']}"


def _nat_egress(tables: list[RouteTable], subnet_ids: Iterable[str]) -> str | None:
    """The NAT gateway that the first EKS subnet with NAT egress routes 0.0.0.0/0 to (main table if implicit)."""
    main = next((table for table in tables if table.main), None)
    for subnet in subnet_ids:
        table = next((t for t in tables if subnet in t.subnet_ids), main)
        target = table.routes.get(DEFAULT_ROUTE, "") if table else ""
        if target.startswith("nat-"):
            return target
    return None
