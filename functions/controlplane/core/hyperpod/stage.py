"""Stage 4 steps: the HyperPod cluster hp-cluster-<tag> (EKS orchestrator) with its first instance group.

The execution role, the lifecycle-script bucket and script, a compute subnet per AZ (private, NAT route,
S3 endpoint through the private route table), CreateCluster with automatic node recovery and continuous
provisioning, the wait until the cluster and its groups are InService, and the Pod Identity association
of the HyperPod training operator. Every method observes first and changes only what differs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from controlplane.core import deadlines
from controlplane.core.hyperpod.conversions import group_spec
from controlplane.core.hyperpod_roles import TRAINING_OPERATOR_NAMESPACE, TRAINING_OPERATOR_SERVICE_ACCOUNT
from controlplane.core.identity import (
    EXECUTION_ROLE_POLICIES,
    POD_IDENTITY_PRINCIPAL,
    SAGEMAKER_PRINCIPAL,
    TRAINING_OPERATOR_POLICY,
    service_trust,
)
from controlplane.core.naming import (
    Deployment,
    compute_subnet_key,
    hyperpod_execution_role_name,
    is_owned,
    lifecycle_bucket_name,
    owner,
    ownership_tags,
    training_operator_role_name,
)
from controlplane.core.network.plan import free_block
from controlplane.core.polling import Poller, Wait
from controlplane.core.ports.eks import EksGateway
from controlplane.core.ports.hyperpod import HyperPodClusterSpec, HyperPodGateway
from controlplane.core.ports.iam import IamGateway
from controlplane.core.ports.network import NetworkGateway, RouteTable, Vpc
from controlplane.core.ports.storage import BucketGateway
from controlplane.models.errors import (
    DependencyFailedError,
    ForeignResourceError,
    InvalidRequestError,
    ResourceNotReadyError,
)
from controlplane.models.hyperpod import HyperPodPlan
from controlplane.models.workflow import DeleteEksClusterInput, GroupPlanInput, PollState, WorkflowState

LIFECYCLE_PREFIX = "lifecycle"
ON_CREATE = "on_create.sh"
ON_CREATE_SCRIPT = Path(__file__).resolve().parents[2] / "config" / "lifecycle" / ON_CREATE
FAILED_STATES = {"Failed", "RollingBack"}
# Route table (Name instantstart-<tag>-compute-rt) for compute subnets in an imported cluster's VPC.
COMPUTE_ROUTE_TABLE = "compute"
DEFAULT_ROUTE = "0.0.0.0/0"


class HyperPodStageService:
    def __init__(
        self,
        network: NetworkGateway,
        iam: IamGateway,
        eks: EksGateway,
        hyperpod: HyperPodGateway,
        buckets: BucketGateway,
        poll: Poller,
        service_boundary_arn: str,
        deployment: Deployment,
    ) -> None:
        self._network = network
        self._iam = iam
        self._eks = eks
        self._hyperpod = hyperpod
        self._buckets = buckets
        self._poll = poll
        # The ceiling of the execution and training-operator roles (the stack's boundary for service roles).
        self._service_boundary_arn = service_boundary_arn
        self._deployment = deployment

    def ensure_execution_role(self, ctx: WorkflowState) -> dict[str, str]:
        return {
            "roleArn": self._ensure_role(
                ctx,
                hyperpod_execution_role_name(self._deployment, ctx.clusterTag),
                service_trust(SAGEMAKER_PRINCIPAL),
                tuple(self._deployment.managed_policy_arn(policy) for policy in EXECUTION_ROLE_POLICIES),
            )
        }

    def ensure_lifecycle_scripts(self, ctx: WorkflowState) -> dict[str, str]:
        bucket = self._bucket(ctx)
        tags = self._buckets.bucket_tags(bucket)
        if tags is None:
            self._buckets.create_bucket(bucket, ownership_tags(self._deployment, ctx.clusterTag))
        elif not is_owned(self._deployment, tags, ctx.clusterTag):
            raise ForeignResourceError(
                f"Bucket {bucket} exists but was not created by InstantStart for this cluster. {owner(tags)}"
            )
        script = ON_CREATE_SCRIPT.read_bytes()
        key = f"{LIFECYCLE_PREFIX}/{ON_CREATE}"
        if self._buckets.object_body(bucket, key) != script:
            self._buckets.put_object(bucket, key, script)
        return {"lifecycleUri": lifecycle_uri(ctx)}

    def ensure_compute_subnet(self, ctx: GroupPlanInput) -> dict[str, str]:
        plan = ctx.hyperpod
        vpc, table = self._compute_network(ctx)
        key = _subnet_key(plan)
        subnet = self._network.find_subnets(ctx.clusterTag).get(key)
        if subnet is None:
            cidr = free_block(vpc.cidr, self._network.vpc_subnet_cidrs(vpc.vpc_id))
            subnet = self._network.create_subnet(ctx.clusterTag, vpc.vpc_id, key, cidr, plan.availabilityZone, False)
        if subnet.subnet_id not in table.subnet_ids:
            self._network.associate_route_table(table.route_table_id, subnet.subnet_id)
        return {"subnetId": subnet.subnet_id, "cidr": subnet.cidr}

    def create_hyperpod_cluster(self, ctx: GroupPlanInput) -> dict[str, str]:
        plan = ctx.hyperpod
        name = ctx.hyperPodClusterName
        found = self._hyperpod.find_cluster(name)
        if found is not None:
            if not is_owned(self._deployment, found.tags, ctx.clusterTag):
                raise ForeignResourceError(
                    f"HyperPod cluster {name} exists but was not created by InstantStart. {owner(found.tags)}"
                )
            return {"clusterName": name, "status": found.status, "action": "found"}
        eks = self._eks.find_cluster(ctx.eksClusterName)
        role = self._iam.find_role(hyperpod_execution_role_name(self._deployment, ctx.clusterTag))
        subnet = self._network.find_subnets(ctx.clusterTag).get(_subnet_key(plan))
        imported = ctx.importedNetwork
        group = imported.securityGroupId if imported else self._network.find_security_group(ctx.clusterTag)
        if eks is None or role is None or subnet is None or group is None:
            raise ResourceNotReadyError("The EKS cluster, execution role, compute subnet or security group is missing.")
        spec = HyperPodClusterSpec(
            name=name,
            eks_cluster_arn=eks.arn,
            subnet_ids=(subnet.subnet_id,),
            security_group_ids=(group,),
            groups=(group_spec(plan, role.arn, lifecycle_uri(ctx)),),
            tags=ownership_tags(self._deployment, ctx.clusterTag),
        )
        arn = self._hyperpod.create_cluster(spec)
        return {"clusterName": name, "clusterArn": arn, "action": "created"}

    def check_hyperpod_cluster(self, ctx: WorkflowState) -> PollState:
        name = ctx.hyperPodClusterName
        cluster = self._hyperpod.find_cluster(name)
        if cluster is None:
            raise ResourceNotReadyError(f"HyperPod cluster {name} does not exist; the create step must run first.")
        if cluster.status in FAILED_STATES:
            raise DependencyFailedError(
                f"HyperPod cluster {name} is {cluster.status}: {cluster.failure_message or 'no failure message'}. "
                "Fix the cause (capacity, quota, lifecycle script), delete the cluster, then resume."
            )
        groups_ready = all(
            group.status == "InService" and group.current_count >= group.target_count for group in cluster.groups
        )
        done = cluster.status == "InService" and groups_ready
        wait = Wait(
            f"HyperPod cluster {name} and its instances to be in service",
            deadlines.instances_in_service(cluster.groups),
        )
        return self._poll.poll(ctx, wait, done=done, status=cluster.status)

    def ensure_training_operator_identity(self, ctx: WorkflowState) -> dict[str, str]:
        role_arn = self._ensure_role(
            ctx,
            training_operator_role_name(self._deployment, ctx.clusterTag),
            service_trust(POD_IDENTITY_PRINCIPAL, ("sts:AssumeRole", "sts:TagSession")),
            (self._deployment.managed_policy_arn(TRAINING_OPERATOR_POLICY),),
        )
        cluster = ctx.eksClusterName
        current = self._eks.pod_identity_role(cluster, TRAINING_OPERATOR_NAMESPACE, TRAINING_OPERATOR_SERVICE_ACCOUNT)
        if current is None:
            self._eks.create_pod_identity_association(
                cluster,
                TRAINING_OPERATOR_NAMESPACE,
                TRAINING_OPERATOR_SERVICE_ACCOUNT,
                role_arn,
                ownership_tags(self._deployment, ctx.clusterTag),
            )
        elif current != role_arn:
            raise ForeignResourceError(
                f"{TRAINING_OPERATOR_NAMESPACE}/{TRAINING_OPERATOR_SERVICE_ACCOUNT} already has a pod identity "
                f"association with {current}; remove it or keep using it outside InstantStart."
            )
        return {"roleArn": role_arn}

    def delete_hyperpod_cluster(self, ctx: DeleteEksClusterInput) -> dict[str, str]:
        name = ctx.hyperPodClusterName
        cluster = self._hyperpod.find_cluster(name)
        if cluster is None:
            return {"clusterName": name, "action": "absent"}
        if not is_owned(self._deployment, cluster.tags, ctx.clusterTag):
            return {"clusterName": name, "action": "kept (not ours)"}
        if cluster.status != "Deleting":
            self._hyperpod.delete_cluster(name)
        return {"clusterName": name, "action": "deleting"}

    def check_hyperpod_cluster_deleted(self, ctx: DeleteEksClusterInput) -> PollState:
        cluster = self._hyperpod.find_cluster(ctx.hyperPodClusterName)
        done = cluster is None or not is_owned(self._deployment, cluster.tags, ctx.clusterTag)
        wait = Wait(f"HyperPod cluster {ctx.hyperPodClusterName} to be deleted", deadlines.HYPERPOD_DELETED)
        return self._poll.poll(ctx, wait, done=done, status="DELETED" if done else cluster.status if cluster else None)

    def delete_hyperpod_resources(self, ctx: DeleteEksClusterInput) -> dict[str, str]:
        """Remove the roles and the lifecycle bucket stage 4 created (subnets go with the network)."""
        deleted = []
        for name in (
            hyperpod_execution_role_name(self._deployment, ctx.clusterTag),
            training_operator_role_name(self._deployment, ctx.clusterTag),
        ):
            role = self._iam.find_role(name)
            if role is not None and is_owned(self._deployment, role.tags, ctx.clusterTag):
                self._iam.delete_role(name)
                deleted.append(f"role {name}")
        bucket = self._bucket(ctx)
        tags = self._buckets.bucket_tags(bucket)
        if tags is not None and is_owned(self._deployment, tags, ctx.clusterTag):
            self._buckets.delete_bucket(bucket)
            deleted.append(f"bucket {bucket}")
        return {"deleted": ", ".join(deleted) or "nothing left"}

    def _compute_network(self, ctx: WorkflowState) -> tuple[Vpc, RouteTable]:
        """The VPC and the route table compute subnets join: stage 1's private one, or for an imported
        cluster a `compute` route table of our own whose default route uses the VPC's existing NAT gateway."""
        imported = ctx.importedNetwork
        if imported is None:
            vpc = self._network.find_vpc(ctx.clusterTag)
            private = self._network.find_route_table(ctx.clusterTag, "private")
            if vpc is None or private is None:
                raise ResourceNotReadyError("The cluster's VPC or private route table is missing (stage 1).")
            return vpc, private
        if imported.natGatewayId is None:
            raise InvalidRequestError(
                f"VPC {imported.vpcId} of the imported cluster has no NAT gateway route; HyperPod nodes in private "
                "subnets need egress. Add a NAT gateway route to the EKS subnets' route table, then resume."
            )
        vpc = Vpc(vpc_id=imported.vpcId, cidr=imported.vpcCidr)
        table = self._network.find_route_table(ctx.clusterTag, COMPUTE_ROUTE_TABLE) or self._network.create_route_table(
            ctx.clusterTag, COMPUTE_ROUTE_TABLE, vpc.vpc_id
        )
        if table.routes.get(DEFAULT_ROUTE) != imported.natGatewayId:
            self._network.add_default_route(table.route_table_id, imported.natGatewayId)
        return vpc, table

    def _ensure_role(self, ctx: WorkflowState, name: str, trust: dict[str, Any], policy_arns: tuple[str, ...]) -> str:
        """The role with each of its policies attached: a role made before a policy joined the list gets it now."""
        role = self._iam.find_role(name)
        if role is None:
            role = self._iam.create_role(
                name, trust, ownership_tags(self._deployment, ctx.clusterTag), self._service_boundary_arn
            )
        elif not is_owned(self._deployment, role.tags, ctx.clusterTag):
            raise ForeignResourceError(
                f"IAM role {name} exists but was not created by InstantStart for this cluster. {owner(role.tags)}"
            )
        for policy_arn in policy_arns:
            if policy_arn not in role.attached_policy_arns:
                self._iam.attach_policy(name, policy_arn)
        return role.arn

    @staticmethod
    def _bucket(ctx: WorkflowState) -> str:
        return lifecycle_bucket_name(ctx.clusterTag, ctx.accountId, ctx.region)


def lifecycle_uri(ctx: WorkflowState) -> str:
    """Where every instance group of the cluster reads its lifecycle scripts (a `sagemaker-` bucket)."""
    return f"s3://{HyperPodStageService._bucket(ctx)}/{LIFECYCLE_PREFIX}/"


def _subnet_key(plan: HyperPodPlan) -> str:
    return compute_subnet_key(plan.availabilityZone, plan.instanceGroupName if plan.dedicatedSubnet else None)
