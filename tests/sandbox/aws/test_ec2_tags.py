"""A tagged EC2 resource's tags are read by its ID, with what moto's scan of every tagged resource returned."""

from __future__ import annotations

import boto3
from moto import mock_aws
from moto.ec2.models import ec2_backends
from moto.ec2.models.core import TaggedEC2Resource

from sandbox.aws.ec2 import Ec2Extension


def test_tags_by_id_are_those_of_moto_and_filters_still_select_by_them() -> None:
    with mock_aws():
        ec2 = boto3.client("ec2", region_name="us-west-2")
        vpc = ec2.create_vpc(CidrBlock="10.0.0.0/16")["Vpc"]["VpcId"]
        # IDs that share a prefix: moto's scan matches patterns, the read by ID must not mix them up.
        subnets = [
            ec2.create_subnet(VpcId=vpc, CidrBlock=f"10.0.{i}.0/24", AvailabilityZone="us-west-2a")["Subnet"]
            for i in range(3)
        ]
        ec2.create_tags(Resources=[vpc], Tags=[{"Key": "Name", "Value": "net"}, {"Key": "team", "Value": "ml"}])
        ec2.create_tags(Resources=[subnets[1]["SubnetId"]], Tags=[{"Key": "tier", "Value": "private"}])
        backend = ec2_backends["123456789012"]["us-west-2"]
        resources = [backend.vpcs[vpc], *(backend.subnets["us-west-2a"][s["SubnetId"]] for s in subnets)]
        scanned = [TaggedEC2Resource.get_tags(resource) for resource in resources]

        extension = Ec2Extension(lambda subnet_id: 0)
        extension.install()
        try:
            assert [resource.get_tags() for resource in resources] == scanned
            assert scanned[0] and scanned[2] and not scanned[1]
            found = ec2.describe_subnets(Filters=[{"Name": "tag:tier", "Values": ["private"]}])["Subnets"]
            assert [s["SubnetId"] for s in found] == [subnets[1]["SubnetId"]]
            assert ec2.describe_vpcs(VpcIds=[vpc])["Vpcs"][0]["Tags"] == [
                {"Key": "Name", "Value": "net"},
                {"Key": "team", "Value": "ml"},
            ]
        finally:
            extension.uninstall()
