"""EC2 networking for one Region. Resources are tagged at creation and found by those tags."""

from __future__ import annotations

from typing import Any

from botocore.exceptions import ClientError

from controlplane.adapters.aws.session import client, error_code, tag_dict, tag_list
from controlplane.core.naming import ROLE_TAG_KEY, Deployment, ownership_tags, resource_name
from controlplane.core.ports.network import InternetGateway, NatGateway, RouteTable, Subnet, Vpc

_GONE = {
    "InvalidVpcID.NotFound",
    "InvalidSubnetID.NotFound",
    "InvalidInternetGatewayID.NotFound",
    "InvalidAllocationID.NotFound",
    "NatGatewayNotFound",
    "InvalidRouteTableID.NotFound",
    "InvalidVpcEndpointId.NotFound",
    "InvalidGroup.NotFound",
    "Gateway.NotAttached",
}


def _tags(deployment: Deployment, cluster_tag: str, role: str, resource_type: str) -> list[dict[str, Any]]:
    tags = {
        "Name": resource_name(cluster_tag, role),
        **ownership_tags(deployment, cluster_tag),
        ROLE_TAG_KEY: role,
    }
    return [{"ResourceType": resource_type, "Tags": tag_list(tags)}]


def _filters(deployment: Deployment, cluster_tag: str, role: str | None = None) -> list[dict[str, Any]]:
    """Only what this deployment created for the cluster: every ownership tag must match."""
    filters = [
        {"Name": f"tag:{key}", "Values": [value]} for key, value in ownership_tags(deployment, cluster_tag).items()
    ]
    if role is not None:
        filters.append({"Name": f"tag:{ROLE_TAG_KEY}", "Values": [role]})
    return filters


def _ignore_gone(call: Any, **kwargs: Any) -> None:
    try:
        call(**kwargs)
    except ClientError as error:
        if error_code(error) not in _GONE:
            raise


def _route_table(table: dict[str, Any]) -> RouteTable:
    routes = {
        route["DestinationCidrBlock"]: route.get("GatewayId") or route.get("NatGatewayId", "")
        for route in table.get("Routes", [])
        if "DestinationCidrBlock" in route
    }
    associations = table.get("Associations", [])
    return RouteTable(
        route_table_id=table["RouteTableId"],
        routes=routes,
        subnet_ids=frozenset(a["SubnetId"] for a in associations if a.get("SubnetId")),
        main=any(a.get("Main") for a in associations),
    )


class Ec2NetworkGateway:
    def __init__(self, region: str, deployment: Deployment) -> None:
        self._region = region
        self._deployment = deployment

    @property
    def _ec2(self) -> Any:
        return client("ec2", self._region)

    # VPC
    def find_vpc(self, cluster_tag: str) -> Vpc | None:
        vpcs = self._ec2.describe_vpcs(Filters=_filters(self._deployment, cluster_tag, "vpc"))["Vpcs"]
        return Vpc(vpc_id=vpcs[0]["VpcId"], cidr=vpcs[0]["CidrBlock"]) if vpcs else None

    def create_vpc(self, cluster_tag: str, cidr: str) -> Vpc:
        vpc = self._ec2.create_vpc(
            CidrBlock=cidr, TagSpecifications=_tags(self._deployment, cluster_tag, "vpc", "vpc")
        )["Vpc"]
        self._ec2.modify_vpc_attribute(VpcId=vpc["VpcId"], EnableDnsSupport={"Value": True})
        self._ec2.modify_vpc_attribute(VpcId=vpc["VpcId"], EnableDnsHostnames={"Value": True})
        return Vpc(vpc_id=vpc["VpcId"], cidr=vpc["CidrBlock"])

    def vpc(self, vpc_id: str) -> Vpc | None:
        try:
            vpcs = self._ec2.describe_vpcs(VpcIds=[vpc_id])["Vpcs"]
        except ClientError as error:
            if error_code(error) in _GONE:
                return None
            raise
        if not vpcs:
            return None
        return Vpc(vpc_id=vpcs[0]["VpcId"], cidr=vpcs[0]["CidrBlock"], tags=tag_dict(vpcs[0].get("Tags")))

    def tag_resource(self, resource_id: str, tags: dict[str, str]) -> None:
        self._ec2.create_tags(Resources=[resource_id], Tags=tag_list(tags))

    def untag_resource(self, resource_id: str, keys: list[str]) -> None:
        _ignore_gone(self._ec2.delete_tags, Resources=[resource_id], Tags=[{"Key": key} for key in keys])

    def delete_vpc(self, vpc_id: str) -> None:
        _ignore_gone(self._ec2.delete_vpc, VpcId=vpc_id)

    # Subnets
    def find_subnets(self, cluster_tag: str) -> dict[str, Subnet]:
        found = {}
        for subnet in self._ec2.describe_subnets(Filters=_filters(self._deployment, cluster_tag))["Subnets"]:
            key = tag_dict(subnet.get("Tags")).get(ROLE_TAG_KEY, "")
            found[key] = Subnet(
                subnet_id=subnet["SubnetId"],
                key=key,
                cidr=subnet["CidrBlock"],
                availability_zone=subnet["AvailabilityZone"],
            )
        return found

    def vpc_subnet_cidrs(self, vpc_id: str) -> list[str]:
        subnets = self._ec2.describe_subnets(Filters=[{"Name": "vpc-id", "Values": [vpc_id]}])["Subnets"]
        return [subnet["CidrBlock"] for subnet in subnets]

    def create_subnet(
        self, cluster_tag: str, vpc_id: str, key: str, cidr: str, availability_zone: str, public: bool
    ) -> Subnet:
        tags = _tags(self._deployment, cluster_tag, key, "subnet")
        # Load balancers find their subnets by these well-known tags.
        tags[0]["Tags"].append(
            {"Key": "kubernetes.io/role/elb" if public else "kubernetes.io/role/internal-elb", "Value": "1"}
        )
        subnet = self._ec2.create_subnet(
            VpcId=vpc_id, CidrBlock=cidr, AvailabilityZone=availability_zone, TagSpecifications=tags
        )["Subnet"]
        if public:
            self._ec2.modify_subnet_attribute(SubnetId=subnet["SubnetId"], MapPublicIpOnLaunch={"Value": True})
        return Subnet(subnet_id=subnet["SubnetId"], key=key, cidr=cidr, availability_zone=availability_zone)

    def delete_subnet(self, subnet_id: str) -> None:
        _ignore_gone(self._ec2.delete_subnet, SubnetId=subnet_id)

    # Internet gateway
    def find_internet_gateway(self, cluster_tag: str) -> InternetGateway | None:
        gateways = self._ec2.describe_internet_gateways(Filters=_filters(self._deployment, cluster_tag, "igw"))[
            "InternetGateways"
        ]
        if not gateways:
            return None
        attachments = gateways[0].get("Attachments") or []
        return InternetGateway(
            gateway_id=gateways[0]["InternetGatewayId"],
            attached_vpc_id=attachments[0]["VpcId"] if attachments else None,
        )

    def create_internet_gateway(self, cluster_tag: str) -> InternetGateway:
        gateway = self._ec2.create_internet_gateway(
            TagSpecifications=_tags(self._deployment, cluster_tag, "igw", "internet-gateway")
        )
        return InternetGateway(gateway_id=gateway["InternetGateway"]["InternetGatewayId"], attached_vpc_id=None)

    def attach_internet_gateway(self, gateway_id: str, vpc_id: str) -> None:
        self._ec2.attach_internet_gateway(InternetGatewayId=gateway_id, VpcId=vpc_id)

    def delete_internet_gateway(self, gateway: InternetGateway) -> None:
        if gateway.attached_vpc_id:
            _ignore_gone(
                self._ec2.detach_internet_gateway, InternetGatewayId=gateway.gateway_id, VpcId=gateway.attached_vpc_id
            )
        _ignore_gone(self._ec2.delete_internet_gateway, InternetGatewayId=gateway.gateway_id)

    # Elastic IP and NAT gateway
    def find_elastic_ip(self, cluster_tag: str) -> str | None:
        addresses = self._ec2.describe_addresses(Filters=_filters(self._deployment, cluster_tag, "nat-eip"))[
            "Addresses"
        ]
        return addresses[0]["AllocationId"] if addresses else None

    def allocate_elastic_ip(self, cluster_tag: str) -> str:
        address = self._ec2.allocate_address(
            Domain="vpc", TagSpecifications=_tags(self._deployment, cluster_tag, "nat-eip", "elastic-ip")
        )
        return str(address["AllocationId"])

    def release_elastic_ip(self, allocation_id: str) -> None:
        _ignore_gone(self._ec2.release_address, AllocationId=allocation_id)

    def find_nat_gateway(self, cluster_tag: str) -> NatGateway | None:
        filters = [
            *_filters(self._deployment, cluster_tag, "nat"),
            {"Name": "state", "Values": ["pending", "available", "deleting"]},
        ]
        gateways = self._ec2.describe_nat_gateways(Filters=filters)["NatGateways"]
        return NatGateway(gateway_id=gateways[0]["NatGatewayId"], state=gateways[0]["State"]) if gateways else None

    def create_nat_gateway(self, cluster_tag: str, subnet_id: str, allocation_id: str) -> NatGateway:
        gateway = self._ec2.create_nat_gateway(
            SubnetId=subnet_id,
            AllocationId=allocation_id,
            TagSpecifications=_tags(self._deployment, cluster_tag, "nat", "natgateway"),
        )["NatGateway"]
        return NatGateway(gateway_id=gateway["NatGatewayId"], state=gateway["State"])

    def delete_nat_gateway(self, gateway_id: str) -> None:
        _ignore_gone(self._ec2.delete_nat_gateway, NatGatewayId=gateway_id)

    # Route tables
    def find_route_table(self, cluster_tag: str, role: str) -> RouteTable | None:
        tables = self._ec2.describe_route_tables(Filters=_filters(self._deployment, cluster_tag, f"{role}-rt"))[
            "RouteTables"
        ]
        return _route_table(tables[0]) if tables else None

    def vpc_route_tables(self, vpc_id: str) -> list[RouteTable]:
        tables = self._ec2.describe_route_tables(Filters=[{"Name": "vpc-id", "Values": [vpc_id]}])["RouteTables"]
        return [_route_table(table) for table in tables]

    def create_route_table(self, cluster_tag: str, role: str, vpc_id: str) -> RouteTable:
        table = self._ec2.create_route_table(
            VpcId=vpc_id, TagSpecifications=_tags(self._deployment, cluster_tag, f"{role}-rt", "route-table")
        )["RouteTable"]
        return RouteTable(route_table_id=table["RouteTableId"], routes={}, subnet_ids=frozenset())

    def add_default_route(self, route_table_id: str, target_id: str) -> None:
        target = {"NatGatewayId": target_id} if target_id.startswith("nat-") else {"GatewayId": target_id}
        try:
            self._ec2.create_route(RouteTableId=route_table_id, DestinationCidrBlock="0.0.0.0/0", **target)
        except ClientError as error:
            if error_code(error) != "RouteAlreadyExists":
                raise
            self._ec2.replace_route(RouteTableId=route_table_id, DestinationCidrBlock="0.0.0.0/0", **target)

    def associate_route_table(self, route_table_id: str, subnet_id: str) -> None:
        self._ec2.associate_route_table(RouteTableId=route_table_id, SubnetId=subnet_id)

    def delete_route_table(self, route_table_id: str) -> None:
        tables = self._ec2.describe_route_tables(RouteTableIds=[route_table_id])["RouteTables"]
        for association in (tables[0].get("Associations") or []) if tables else []:
            if not association.get("Main"):
                _ignore_gone(self._ec2.disassociate_route_table, AssociationId=association["RouteTableAssociationId"])
        _ignore_gone(self._ec2.delete_route_table, RouteTableId=route_table_id)

    # S3 gateway endpoint
    def find_s3_endpoint(self, cluster_tag: str) -> str | None:
        filters = [
            *_filters(self._deployment, cluster_tag, "s3-endpoint"),
            {"Name": "vpc-endpoint-state", "Values": ["pending", "available"]},
        ]
        endpoints = self._ec2.describe_vpc_endpoints(Filters=filters)["VpcEndpoints"]
        return endpoints[0]["VpcEndpointId"] if endpoints else None

    def create_s3_endpoint(self, cluster_tag: str, vpc_id: str, route_table_ids: list[str]) -> str:
        endpoint = self._ec2.create_vpc_endpoint(
            VpcEndpointType="Gateway",
            VpcId=vpc_id,
            ServiceName=f"com.amazonaws.{self._region}.s3",
            RouteTableIds=route_table_ids,
            TagSpecifications=_tags(self._deployment, cluster_tag, "s3-endpoint", "vpc-endpoint"),
        )["VpcEndpoint"]
        return str(endpoint["VpcEndpointId"])

    def delete_endpoint(self, endpoint_id: str) -> None:
        self._ec2.delete_vpc_endpoints(VpcEndpointIds=[endpoint_id])

    # Security group
    def find_security_group(self, cluster_tag: str) -> str | None:
        groups = self._ec2.describe_security_groups(Filters=_filters(self._deployment, cluster_tag, "cluster-sg"))[
            "SecurityGroups"
        ]
        return groups[0]["GroupId"] if groups else None

    def create_security_group(self, cluster_tag: str, vpc_id: str) -> str:
        return str(
            self._ec2.create_security_group(
                GroupName=resource_name(cluster_tag, "cluster-sg"),
                Description=f"InstantStart cluster {cluster_tag}: traffic between cluster members",
                VpcId=vpc_id,
                TagSpecifications=_tags(self._deployment, cluster_tag, "cluster-sg", "security-group"),
            )["GroupId"]
        )

    def allow_traffic_within_group(self, group_id: str) -> None:
        """All traffic between members (EKS, nodes, EFA needs it both ways); idempotent."""
        group = self._ec2.describe_security_groups(GroupIds=[group_id])["SecurityGroups"][0]
        rule = {"IpProtocol": "-1", "UserIdGroupPairs": [{"GroupId": group_id}]}
        for direction, call in (
            ("IpPermissions", self._ec2.authorize_security_group_ingress),
            ("IpPermissionsEgress", self._ec2.authorize_security_group_egress),
        ):
            present = any(
                permission.get("IpProtocol") == "-1"
                and any(pair.get("GroupId") == group_id for pair in permission.get("UserIdGroupPairs", []))
                for permission in group.get(direction, [])
            )
            if not present:
                call(GroupId=group_id, IpPermissions=[rule])

    def delete_security_group(self, group_id: str) -> None:
        _ignore_gone(self._ec2.delete_security_group, GroupId=group_id)
