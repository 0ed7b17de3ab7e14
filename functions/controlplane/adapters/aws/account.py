"""Account and Region facts that requests are validated against."""

from __future__ import annotations

from controlplane.adapters.aws.session import client, session
from controlplane.core.ports import AvailabilityZone


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
