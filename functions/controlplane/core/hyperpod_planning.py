"""Planning an instance group to create (stage 4's first group, or one added later) against live facts.

Checks the request against the Region's offerings, training plans and the instance type's capabilities, and
resolves it to the `HyperPodPlan` the workflow acts on; says what stage 4 would create. Not here: the stage-4
steps and the instance-group service, which belong to the HyperPod context.
"""

from __future__ import annotations

from controlplane.core.naming import Deployment, hyperpod_execution_role_name
from controlplane.core.ports.account import AccountGateway
from controlplane.models.clusters import ClusterRecord, PlannedAction, StageName
from controlplane.models.errors import ClusterExistsError, InvalidRequestError
from controlplane.models.hyperpod import CreateHyperPodRequest, HyperPodPlan
from controlplane.models.instance_types import ec2_type, instance_type


class HyperPodPlanner:
    def __init__(self, account: AccountGateway) -> None:
        self._account = account

    def first_group(self, record: ClusterRecord, request: CreateHyperPodRequest) -> HyperPodPlan:
        """Stage 4 on a cluster ready for it: refused when the cluster has its HyperPod cluster already, or when
        an imported VPC gives the nodes no egress."""
        if StageName.HYPERPOD.value in record.stagesDone:
            raise ClusterExistsError(
                f"Cluster '{record.clusterTag}' already has its HyperPod cluster; add capacity with an instance "
                "group instead.",
            )
        if record.network is not None and record.network.natGatewayId is None:
            raise InvalidRequestError(
                f"VPC {record.network.vpcId} of the imported cluster has no NAT gateway route from the EKS subnets; "
                "HyperPod nodes in private subnets need egress. Add a NAT gateway route there first.",
                {"vpcId": record.network.vpcId},
            )
        return self.resolve_group(record.region, request)

    def resolve_group(self, region: str, request: CreateHyperPodRequest) -> HyperPodPlan:
        """The group with its AZ (a training plan's takes precedence) and defaults, checked against offerings."""
        zone = request.availabilityZone
        if request.trainingPlanArn:
            plan = self._account.training_plan(region, request.trainingPlanArn)
            if plan is None:
                raise InvalidRequestError(
                    f"Unknown training plan {request.trainingPlanArn} in {region}; list the Region's training "
                    "plans and pass one of their ARNs.",
                    {"trainingPlanArn": request.trainingPlanArn},
                )
            if plan.instance_type and plan.instance_type != request.instanceType:
                raise InvalidRequestError(
                    f"Training plan {plan.name} reserves {plan.instance_type}, not {request.instanceType}.",
                    {"planInstanceType": plan.instance_type},
                )
            if request.instanceCount > plan.instance_count:
                raise InvalidRequestError(
                    f"Training plan {plan.name} reserves {plan.instance_count} instances; ask for at most that many.",
                )
            if zone and plan.availability_zone and zone != plan.availability_zone:
                raise InvalidRequestError(
                    f"Training plan {plan.name} is in {plan.availability_zone}; its AZ takes precedence. Omit "
                    f"availabilityZone or pass {plan.availability_zone}.",
                )
            zone = plan.availability_zone or zone
        zones = [z.name for z in self._account.availability_zones(region)]
        if zone is None:
            raise InvalidRequestError("availabilityZone is required: the training plan does not name an AZ.")
        if zone not in zones:
            raise InvalidRequestError(
                f"Availability Zone {zone} is not in {region}; choose one of: {', '.join(zones)}.",
                {"availabilityZones": zones},
            )
        offered = self._account.offerings(region, [ec2_type(request.instanceType)])[ec2_type(request.instanceType)]
        if zone not in offered:
            raise InvalidRequestError(
                f"{request.instanceType} is not offered in {zone}"
                + (f"; it is offered in: {', '.join(offered)}." if offered else f" nor anywhere in {region}."),
                {"offeredIn": offered},
            )
        known = instance_type(request.instanceType)
        supports_checks = known is not None and known.deep_health_checks
        if request.deepHealthChecks and not supports_checks:
            raise InvalidRequestError(
                f"Deep health checks test NVIDIA GPUs and EFA; {request.instanceType} does not support them. "
                "Omit deepHealthChecks or set it to false.",
            )
        efa_cards = known.efa_interfaces if known else 0
        if request.networkInterface == "efa-only" and (known is None or not known.efa_only_capable):
            raise InvalidRequestError(
                f"networkInterface efa-only needs an instance type with more than one EFA card; {request.instanceType} "
                f"has {efa_cards}. The interface type is immutable once the group exists, so choose now: a type with "
                f"several EFA cards (such as ml.p5.48xlarge), or {'efa' if efa_cards else 'no networkInterface'}.",
                {"efaInterfaces": efa_cards},
            )
        if request.networkInterface == "efa" and known is not None and efa_cards == 0:
            raise InvalidRequestError(
                f"{request.instanceType} has no EFA interface; omit networkInterface.", {"efaInterfaces": 0}
            )
        return HyperPodPlan(
            availabilityZone=zone,
            instanceType=request.instanceType,
            instanceCount=request.instanceCount,
            capacityType=request.capacityType,
            trainingPlanArn=request.trainingPlanArn,
            ebsVolumeSizeGb=request.ebsVolumeSizeGb,
            instanceGroupName=request.instanceGroupName,
            # Custom taints and deep health checks exclude each other: taints turn the default off.
            deepHealthChecks=supports_checks and not request.taints
            if request.deepHealthChecks is None
            else request.deepHealthChecks,
            dedicatedSubnet=request.dedicatedSubnet,
            threadsPerCore=known.threads_per_core if known else 1,
            minInstanceCount=request.minInstanceCount,
            networkInterface=request.networkInterface,
            labels=request.labels,
            taints=request.taints,
        )


def hyperpod_actions(
    deployment: Deployment, cluster_tag: str, resolved: HyperPodPlan, name: str
) -> list[PlannedAction]:
    """What stage 4 creates for the HyperPod cluster `name` and its first group."""
    zone = resolved.availabilityZone
    return [
        PlannedAction(
            action="create", resource="AWS::IAM::Role", name=hyperpod_execution_role_name(deployment, cluster_tag)
        ),
        PlannedAction(action="create", resource="AWS::S3::Bucket", name="lifecycle scripts (sagemaker-is-…)"),
        PlannedAction(action="create", resource="AWS::EC2::Subnet", name=f"compute subnet in {zone}"),
        PlannedAction(
            action="create",
            resource="AWS::SageMaker::Cluster",
            name=name,
            detail=f"{resolved.instanceCount} x {resolved.instanceType} ({resolved.capacityType}) in {zone}, "
            f"NodeRecovery Automatic, deep health checks {'on' if resolved.deepHealthChecks else 'off'}",
        ),
        PlannedAction(
            action="create",
            resource="AWS::EKS::PodIdentityAssociation",
            name="aws-hyperpod/hp-training-operator-controller-manager",
        ),
    ]
