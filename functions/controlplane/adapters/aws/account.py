"""Account and Region facts that requests are validated against."""

from __future__ import annotations

from botocore.exceptions import ClientError

from controlplane.adapters.aws.session import client, error_code, session
from controlplane.core.ports import AvailabilityZone, TrainingPlan


class AwsAccountGateway:
    def known_regions(self) -> frozenset[str]:
        return frozenset(session().get_available_regions("eks"))

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

    def zones_offering(self, region: str, ec2_instance_type: str) -> list[str]:
        offerings = client("ec2", region).describe_instance_type_offerings(
            LocationType="availability-zone", Filters=[{"Name": "instance-type", "Values": [ec2_instance_type]}]
        )["InstanceTypeOfferings"]
        return sorted(offering["Location"] for offering in offerings)

    def training_plan(self, region: str, arn: str) -> TrainingPlan | None:
        name = arn.rsplit("/", 1)[-1]
        try:
            plan = client("sagemaker", region).describe_training_plan(TrainingPlanName=name)
        except ClientError as error:
            if error_code(error) in ("ResourceNotFound", "ValidationException"):
                return None
            raise
        reserved = plan.get("ReservedCapacitySummaries") or [{}]
        return TrainingPlan(
            arn=plan["TrainingPlanArn"],
            name=plan["TrainingPlanName"],
            status=plan["Status"],
            instance_type=reserved[0].get("InstanceType"),
            instance_count=int(plan.get("TotalInstanceCount") or reserved[0].get("TotalInstanceCount") or 0),
            availability_zone=reserved[0].get("AvailabilityZone"),
        )
