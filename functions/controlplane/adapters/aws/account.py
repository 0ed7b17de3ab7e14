"""Account and Region facts that requests are validated against."""

from __future__ import annotations

from typing import Any

from botocore.exceptions import ClientError

from controlplane.adapters.aws.session import client, error_code, partition, session
from controlplane.core.ports.account import AvailabilityZone, TrainingPlan


class AwsAccountGateway:
    def known_regions(self) -> frozenset[str]:
        # Those of this control plane's partition: boto3 lists the `aws` partition's unless told another.
        return frozenset(session().get_available_regions("eks", partition_name=partition()))

    def availability_zones(self, region: str) -> list[AvailabilityZone]:
        response = client("ec2", region).describe_availability_zones(
            Filters=[{"Name": "zone-type", "Values": ["availability-zone"]}, {"Name": "state", "Values": ["available"]}]
        )
        return [
            AvailabilityZone(name=zone["ZoneName"], zone_id=zone["ZoneId"]) for zone in response["AvailabilityZones"]
        ]

    def vpc_cidrs(self, region: str) -> dict[str, str]:
        cidrs: dict[str, str] = {}
        for page in client("ec2", region).get_paginator("describe_vpcs").paginate():
            for vpc in page["Vpcs"]:
                blocks = vpc.get("CidrBlockAssociationSet") or [{"CidrBlock": vpc["CidrBlock"]}]
                for index, block in enumerate(blocks):
                    cidrs[vpc["VpcId"] if index == 0 else f"{vpc['VpcId']}#{index}"] = block["CidrBlock"]
        return cidrs

    def account_id(self) -> str:
        return str(client("sts").get_caller_identity()["Account"])

    def offerings(self, region: str, ec2_instance_types: list[str]) -> dict[str, list[str]]:
        found: dict[str, list[str]] = {name: [] for name in ec2_instance_types}
        paginator = client("ec2", region).get_paginator("describe_instance_type_offerings")
        pages = paginator.paginate(
            LocationType="availability-zone", Filters=[{"Name": "instance-type", "Values": ec2_instance_types}]
        )
        for page in pages:
            for offering in page["InstanceTypeOfferings"]:
                found.setdefault(offering["InstanceType"], []).append(offering["Location"])
        return {name: sorted(zones) for name, zones in found.items()}

    def training_plans(self, region: str) -> list[TrainingPlan]:
        plans: list[TrainingPlan] = []
        for page in client("sagemaker", region).get_paginator("list_training_plans").paginate():
            plans.extend(_plan(summary) for summary in page["TrainingPlanSummaries"])
        return plans

    def training_plan(self, region: str, arn: str) -> TrainingPlan | None:
        name = arn.rsplit("/", 1)[-1]
        try:
            plan = client("sagemaker", region).describe_training_plan(TrainingPlanName=name)
        except ClientError as error:
            if error_code(error) in ("ResourceNotFound", "ValidationException"):
                return None
            raise
        return _plan(plan)


def _plan(plan: dict[str, Any]) -> TrainingPlan:
    """A training plan from DescribeTrainingPlan or a ListTrainingPlans summary (same field names)."""
    reserved = plan.get("ReservedCapacitySummaries") or [{}]
    return TrainingPlan(
        arn=plan["TrainingPlanArn"],
        name=plan["TrainingPlanName"],
        status=plan["Status"],
        instance_type=reserved[0].get("InstanceType"),
        instance_count=int(plan.get("TotalInstanceCount") or reserved[0].get("TotalInstanceCount") or 0),
        availability_zone=reserved[0].get("AvailabilityZone"),
        available_count=plan.get("AvailableInstanceCount"),
        start_time=plan.get("StartTime"),
        end_time=plan.get("EndTime"),
    )
