"""A NAT gateway's network interface goes with it, and a subnet with a network interface in it cannot be deleted, as
in EC2 (found by the soak: every deleted cluster left its NAT gateway's interface behind in a subnet moto deleted)."""

from __future__ import annotations

from collections.abc import Iterator

import boto3
import pytest
from botocore.exceptions import ClientError
from moto import mock_aws

from sandbox.aws.ec2 import Ec2Extension


@pytest.fixture
def ec2() -> Iterator:
    with mock_aws():
        extension = Ec2Extension(lambda subnet_id: 0)
        extension.install()
        try:
            yield boto3.client("ec2", region_name="us-west-2")
        finally:
            extension.uninstall()


def nat_gateway(ec2) -> tuple[str, str, str]:
    vpc = ec2.create_vpc(CidrBlock="10.0.0.0/16")["Vpc"]["VpcId"]
    subnet = ec2.create_subnet(VpcId=vpc, CidrBlock="10.0.0.0/24", AvailabilityZone="us-west-2a")["Subnet"]["SubnetId"]
    allocation = ec2.allocate_address(Domain="vpc")["AllocationId"]
    gateway = ec2.create_nat_gateway(SubnetId=subnet, AllocationId=allocation)["NatGateway"]["NatGatewayId"]
    return subnet, allocation, gateway


def test_deleting_a_nat_gateway_deletes_its_interface_and_keeps_its_address_unassociated(ec2):
    subnet, allocation, gateway = nat_gateway(ec2)
    in_subnet = [{"Name": "subnet-id", "Values": [subnet]}]
    assert len(ec2.describe_network_interfaces(Filters=in_subnet)["NetworkInterfaces"]) == 1

    ec2.delete_nat_gateway(NatGatewayId=gateway)

    assert ec2.describe_network_interfaces(Filters=in_subnet)["NetworkInterfaces"] == []
    (address,) = ec2.describe_addresses(AllocationIds=[allocation])["Addresses"]
    assert not address.get("AssociationId") and not address.get("NetworkInterfaceId")
    ec2.delete_subnet(SubnetId=subnet)


def test_a_subnet_with_a_network_interface_in_it_is_not_deleted(ec2):
    subnet, _, _ = nat_gateway(ec2)
    with pytest.raises(ClientError) as refused:
        ec2.delete_subnet(SubnetId=subnet)
    assert refused.value.response["Error"]["Code"] == "DependencyViolation"
    assert ec2.describe_subnets(SubnetIds=[subnet])["Subnets"]
