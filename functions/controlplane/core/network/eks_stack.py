"""Stage 1 steps: the network and the EKS control plane, created and deleted idempotently.

Every method observes first, creates only what is missing, adopts what carries our ownership tags
and refuses what does not. Deletion treats "already gone" as done. Methods return a short summary
of what they found or changed, which becomes the step's output.
"""

from __future__ import annotations

from controlplane.core import deadlines
from controlplane.core.identity import EKS_CLUSTER_POLICY, EKS_SERVICE_PRINCIPAL, service_trust
from controlplane.core.naming import Deployment, eks_cluster_role_name, is_owned, owner, ownership_tags, subnet_key
from controlplane.core.polling import Poller, Wait
from controlplane.core.ports.eks import AccessEntryState, ControlPlaneAccess, EksCluster, EksGateway
from controlplane.core.ports.iam import IamGateway
from controlplane.core.ports.kubernetes import KubernetesGateway
from controlplane.core.ports.network import NetworkGateway, Vpc
from controlplane.core.workload_access import workload_rbac
from controlplane.models.errors import (
    ForeignResourceError,
    InvalidRequestError,
    ResourceNotReadyError,
)
from controlplane.models.workflow import DeleteEksClusterInput, EksStageInput, PollState, WorkflowState

DEFAULT_ROUTE = "0.0.0.0/0"


class EksStackService:
    def __init__(
        self,
        network: NetworkGateway,
        iam: IamGateway,
        eks: EksGateway,
        kubernetes: KubernetesGateway,
        access: ControlPlaneAccess,
        poll: Poller,
        service_boundary_arn: str,
        deployment: Deployment,
    ) -> None:
        self._network = network
        self._iam = iam
        self._eks = eks
        self._kubernetes = kubernetes
        self._access = access
        self._poll = poll
        # The ceiling of the cluster role (the stack's boundary for roles AWS services assume).
        self._service_boundary_arn = service_boundary_arn
        self._deployment = deployment

    # --- network -----------------------------------------------------------------------------

    def ensure_vpc(self, ctx: EksStageInput) -> dict[str, str]:
        vpc = self._network.find_vpc(ctx.clusterTag)
        if vpc is None:
            vpc = self._network.create_vpc(ctx.clusterTag, ctx.network.vpcCidr)
            return {"vpcId": vpc.vpc_id, "cidr": vpc.cidr, "action": "created"}
        return {"vpcId": vpc.vpc_id, "cidr": vpc.cidr, "action": "found"}

    def ensure_subnets(self, ctx: EksStageInput) -> dict[str, str]:
        vpc = self._require_vpc(ctx)
        existing = self._network.find_subnets(ctx.clusterTag)
        result = {}
        for subnet in ctx.network.subnets:
            key = subnet_key(subnet.role, subnet.index)
            found = existing.get(key) or self._network.create_subnet(
                ctx.clusterTag, vpc.vpc_id, key, subnet.cidr, subnet.availabilityZone, subnet.role == "public"
            )
            result[key] = found.subnet_id
        return result

    def ensure_internet_gateway(self, ctx: EksStageInput) -> dict[str, str]:
        vpc = self._require_vpc(ctx)
        gateway = self._network.find_internet_gateway(ctx.clusterTag) or self._network.create_internet_gateway(
            ctx.clusterTag
        )
        if gateway.attached_vpc_id != vpc.vpc_id:
            self._network.attach_internet_gateway(gateway.gateway_id, vpc.vpc_id)
        return {"internetGatewayId": gateway.gateway_id}

    def ensure_nat_gateway(self, ctx: EksStageInput) -> dict[str, str]:
        subnets = self._require_subnets(ctx)
        nat = self._network.find_nat_gateway(ctx.clusterTag)
        if nat is None:
            allocation = self._network.find_elastic_ip(ctx.clusterTag) or self._network.allocate_elastic_ip(
                ctx.clusterTag
            )
            nat = self._network.create_nat_gateway(ctx.clusterTag, subnets["public-a"], allocation)
        return {"natGatewayId": nat.gateway_id, "state": nat.state}

    def ensure_route_tables(self, ctx: EksStageInput) -> dict[str, str]:
        vpc = self._require_vpc(ctx)
        subnets = self._require_subnets(ctx)
        gateway = self._network.find_internet_gateway(ctx.clusterTag)
        nat = self._network.find_nat_gateway(ctx.clusterTag)
        if gateway is None or nat is None:
            raise ResourceNotReadyError("The internet or NAT gateway is missing; the earlier steps must run first.")
        if nat.state != "available":
            raise ResourceNotReadyError(f"NAT gateway {nat.gateway_id} is {nat.state}; waiting until available.")
        targets = {"public": gateway.gateway_id, "private": nat.gateway_id}
        result = {}
        for role, target in targets.items():
            table = self._network.find_route_table(ctx.clusterTag, role) or self._network.create_route_table(
                ctx.clusterTag, role, vpc.vpc_id
            )
            if table.routes.get(DEFAULT_ROUTE) != target:
                self._network.add_default_route(table.route_table_id, target)
            for key in (f"{role}-a", f"{role}-b"):
                if subnets[key] not in table.subnet_ids:
                    self._network.associate_route_table(table.route_table_id, subnets[key])
            result[f"{role}RouteTableId"] = table.route_table_id
        return result

    def ensure_s3_endpoint(self, ctx: EksStageInput) -> dict[str, str]:
        vpc = self._require_vpc(ctx)
        endpoint = self._network.find_s3_endpoint(ctx.clusterTag)
        if endpoint is None:
            tables = [self._network.find_route_table(ctx.clusterTag, role) for role in ("public", "private")]
            ids = [table.route_table_id for table in tables if table is not None]
            endpoint = self._network.create_s3_endpoint(ctx.clusterTag, vpc.vpc_id, ids)
        return {"s3EndpointId": endpoint}

    def ensure_security_group(self, ctx: EksStageInput) -> dict[str, str]:
        vpc = self._require_vpc(ctx)
        group = self._network.find_security_group(ctx.clusterTag) or self._network.create_security_group(
            ctx.clusterTag, vpc.vpc_id
        )
        self._network.allow_traffic_within_group(group)
        return {"securityGroupId": group}

    # --- identity and control plane ----------------------------------------------------------

    def ensure_cluster_role(self, ctx: EksStageInput) -> dict[str, str]:
        name = eks_cluster_role_name(self._deployment, ctx.clusterTag)
        role = self._iam.find_role(name)
        if role is None:
            role = self._iam.create_role(
                name,
                service_trust(EKS_SERVICE_PRINCIPAL),
                ownership_tags(self._deployment, ctx.clusterTag),
                self._service_boundary_arn,
            )
        elif not is_owned(self._deployment, role.tags, ctx.clusterTag):
            raise ForeignResourceError(
                f"IAM role {name} exists but was not created by InstantStart for this cluster. {owner(role.tags)}"
            )
        policy_arn = self._deployment.managed_policy_arn(EKS_CLUSTER_POLICY)
        if policy_arn not in role.attached_policy_arns:
            self._iam.attach_policy(name, policy_arn)
        return {"roleArn": role.arn}

    def create_eks_cluster(self, ctx: EksStageInput) -> dict[str, str]:
        name = ctx.eksClusterName
        cluster = self._eks.find_cluster(name)
        if cluster is not None:
            self._require_owned(cluster, ctx)
            return {"clusterName": name, "status": cluster.status, "action": "found"}
        role = self._iam.find_role(eks_cluster_role_name(self._deployment, ctx.clusterTag))
        subnets = self._require_subnets(ctx)
        group = self._network.find_security_group(ctx.clusterTag)
        if role is None or group is None:
            raise ResourceNotReadyError("The cluster role or security group is missing; earlier steps must run first.")
        cluster = self._eks.create_cluster(
            name=name,
            version=ctx.kubernetesVersion,
            role_arn=role.arn,
            subnet_ids=[subnets["private-a"], subnets["private-b"]],
            security_group_ids=[group],
            tags=ownership_tags(self._deployment, ctx.clusterTag),
        )
        return {"clusterName": name, "status": cluster.status, "action": "created"}

    def check_eks_cluster(self, ctx: EksStageInput) -> PollState:
        cluster = self._eks.find_cluster(ctx.eksClusterName)
        if cluster is None:
            raise ResourceNotReadyError("The EKS cluster does not exist; the create step must run first.")
        if cluster.status == "FAILED":
            raise InvalidRequestError(
                f"EKS cluster {cluster.name} failed to create; see its health in the EKS console."
            )
        wait = Wait(
            f"EKS cluster {cluster.name} to be ACTIVE",
            deadlines.EKS_CLUSTER_ACTIVE,
            deadlines.EKS_CLUSTER_ACTIVE_USUALLY,
        )
        return self._poll.poll(ctx, wait, done=cluster.status == "ACTIVE", status=cluster.status)

    def ensure_access_entry(self, ctx: WorkflowState) -> dict[str, str]:
        """The steps' role with cluster admin, the API's role with view (and in the viewers' group) and the API's
        jobs role in the job writers' group, each in its own entry; an entry made before it named its group gets it;
        then the RBAC that gives those groups what their policies leave out."""
        name = ctx.eksClusterName
        ensured = {}
        for entry in self._access.entries():
            live = self._eks.access_entry(name, entry.principal_arn)
            if live is None:
                tags = ownership_tags(self._deployment, ctx.clusterTag)
                self._eks.create_access_entry(name, entry.principal_arn, tags, entry.groups)
                live = AccessEntryState(frozenset(), entry.groups)
            missing = tuple(group for group in entry.groups if group not in live.groups)
            if missing:
                self._eks.update_access_entry_groups(name, entry.principal_arn, (*live.groups, *missing))
            policies = live.policies
            if entry.policy and not any(arn.endswith(f"/{entry.policy}") for arn in policies):
                self._eks.associate_access_policy(name, entry.principal_arn, entry.policy)
            ensured[entry.grants] = entry.principal_arn
        cluster = self._eks.find_cluster(name)
        if cluster is None:
            raise ResourceNotReadyError(f"The EKS cluster {name} is not there yet.")
        self._kubernetes.apply(cluster, ctx.region, workload_rbac())
        return ensured

    def verify_kubernetes_api(self, ctx: WorkflowState) -> dict[str, str]:
        cluster = self._eks.find_cluster(ctx.eksClusterName)
        if cluster is None or cluster.status != "ACTIVE":
            raise ResourceNotReadyError("The EKS cluster is not ACTIVE yet.")
        return {"serverVersion": self._kubernetes.server_version(cluster, ctx.region)}

    # --- delete ------------------------------------------------------------------------------

    def delete_eks_cluster(self, ctx: DeleteEksClusterInput) -> dict[str, str]:
        name = ctx.eksClusterName
        if ctx.imported:
            return {"clusterName": name, "action": "kept (imported)"}
        cluster = self._eks.find_cluster(name)
        if cluster is None:
            return {"clusterName": name, "action": "absent"}
        self._require_owned(cluster, ctx)
        if cluster.status != "DELETING":
            self._eks.delete_cluster(name)
        return {"clusterName": name, "action": "deleting"}

    def check_eks_cluster_deleted(self, ctx: DeleteEksClusterInput) -> PollState:
        cluster = None if ctx.imported else self._eks.find_cluster(ctx.eksClusterName)
        wait = Wait(f"EKS cluster {ctx.eksClusterName} to be deleted", deadlines.EKS_CLUSTER_DELETED)
        if cluster is None:
            return self._poll.poll(ctx, wait, done=True, status="KEPT" if ctx.imported else "DELETED")
        return self._poll.poll(ctx, wait, done=False, status=cluster.status)

    def delete_cluster_role(self, ctx: DeleteEksClusterInput) -> dict[str, str]:
        name = eks_cluster_role_name(self._deployment, ctx.clusterTag)
        role = self._iam.find_role(name)
        if role is None:
            return {"roleName": name, "action": "absent"}
        if not is_owned(self._deployment, role.tags, ctx.clusterTag):
            return {"roleName": name, "action": "kept (not ours)"}
        self._iam.delete_role(name)
        return {"roleName": name, "action": "deleted"}

    def release_nat_gateway(self, ctx: DeleteEksClusterInput) -> PollState:
        """Delete the S3 endpoint and NAT gateway; done once the NAT gateway is gone."""
        endpoint = self._network.find_s3_endpoint(ctx.clusterTag)
        if endpoint is not None:
            self._network.delete_endpoint(endpoint)
        nat = self._network.find_nat_gateway(ctx.clusterTag)
        if nat is not None and nat.state not in ("deleting", "deleted"):
            self._network.delete_nat_gateway(nat.gateway_id)
        wait = Wait(f"the NAT gateway of {ctx.clusterTag} to be deleted", deadlines.NAT_GATEWAY_RELEASED)
        return self._poll.poll(ctx, wait, done=nat is None, status="released" if nat is None else nat.state)

    def delete_network(self, ctx: DeleteEksClusterInput) -> dict[str, str]:
        """Remove the rest of the network in dependency order; absent pieces are skipped."""
        tag = ctx.clusterTag
        deleted = []
        allocation = self._network.find_elastic_ip(tag)
        if allocation is not None:
            self._network.release_elastic_ip(allocation)
            deleted.append("elastic-ip")
        gateway = self._network.find_internet_gateway(tag)
        if gateway is not None:
            self._network.delete_internet_gateway(gateway)
            deleted.append("internet-gateway")
        for subnet in self._network.find_subnets(tag).values():
            self._network.delete_subnet(subnet.subnet_id)
            deleted.append(f"subnet {subnet.key}")
        for role in ("public", "private", "compute"):
            table = self._network.find_route_table(tag, role)
            if table is not None:
                self._network.delete_route_table(table.route_table_id)
                deleted.append(f"route-table {role}")
        group = self._network.find_security_group(tag)
        if group is not None:
            self._network.delete_security_group(group)
            deleted.append("security-group")
        vpc = self._network.find_vpc(tag)
        if vpc is not None:
            self._network.delete_vpc(vpc.vpc_id)
            deleted.append("vpc")
        return {"deleted": ", ".join(deleted) or "nothing left"}

    # --- helpers -----------------------------------------------------------------------------

    def _require_vpc(self, ctx: WorkflowState) -> Vpc:
        vpc = self._network.find_vpc(ctx.clusterTag)
        if vpc is None:
            raise ResourceNotReadyError("The cluster's VPC does not exist; 'Ensure VPC' must run first.")
        return vpc

    def _require_subnets(self, ctx: WorkflowState) -> dict[str, str]:
        subnets = {key: subnet.subnet_id for key, subnet in self._network.find_subnets(ctx.clusterTag).items()}
        missing = {"public-a", "public-b", "private-a", "private-b"} - subnets.keys()
        if missing:
            raise ResourceNotReadyError(f"Subnets {sorted(missing)} are missing; 'Ensure Subnets' must run first.")
        return subnets

    def _require_owned(self, cluster: EksCluster, ctx: WorkflowState) -> None:
        if not is_owned(self._deployment, cluster.tags, ctx.clusterTag):
            raise ForeignResourceError(
                f"EKS cluster {cluster.name} exists but was not created by InstantStart for '{ctx.clusterTag}'; "
                f"import it instead, or choose another clusterTag. {owner(cluster.tags)}"
            )
