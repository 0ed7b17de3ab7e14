"""EC2 networking: VPCs, subnets, gateways and route tables the EKS stage builds."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol


@dataclass(frozen=True)
class Vpc:
    vpc_id: str
    cidr: str
    tags: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Subnet:
    subnet_id: str
    key: str
    cidr: str
    availability_zone: str


@dataclass(frozen=True)
class InternetGateway:
    gateway_id: str
    attached_vpc_id: str | None


@dataclass(frozen=True)
class NatGateway:
    gateway_id: str
    state: str


@dataclass(frozen=True)
class RouteTable:
    route_table_id: str
    routes: dict[str, str]
    subnet_ids: frozenset[str]
    main: bool = False


class NetworkGateway(Protocol):
    """EC2 networking in one Region; resources are found by the cluster's ownership tags."""

    def find_vpc(self, cluster_tag: str) -> Vpc | None: ...

    def vpc(self, vpc_id: str) -> Vpc | None:
        """Any VPC by id, ours or not (imported clusters keep theirs)."""

    def vpc_route_tables(self, vpc_id: str) -> list[RouteTable]:
        """Every route table of the VPC, ours or not."""

    def tag_resource(self, resource_id: str, tags: dict[str, str]) -> None: ...

    def untag_resource(self, resource_id: str, keys: list[str]) -> None: ...

    def create_vpc(self, cluster_tag: str, cidr: str) -> Vpc: ...

    def delete_vpc(self, vpc_id: str) -> None: ...

    def find_subnets(self, cluster_tag: str) -> dict[str, Subnet]: ...

    def vpc_subnet_cidrs(self, vpc_id: str) -> list[str]:
        """CIDRs of every subnet in the VPC, ours or not."""

    def create_subnet(
        self, cluster_tag: str, vpc_id: str, key: str, cidr: str, availability_zone: str, public: bool
    ) -> Subnet: ...

    def delete_subnet(self, subnet_id: str) -> None: ...

    def find_internet_gateway(self, cluster_tag: str) -> InternetGateway | None: ...

    def create_internet_gateway(self, cluster_tag: str) -> InternetGateway: ...

    def attach_internet_gateway(self, gateway_id: str, vpc_id: str) -> None: ...

    def delete_internet_gateway(self, gateway: InternetGateway) -> None: ...

    def find_elastic_ip(self, cluster_tag: str) -> str | None: ...

    def allocate_elastic_ip(self, cluster_tag: str) -> str: ...

    def release_elastic_ip(self, allocation_id: str) -> None: ...

    def find_nat_gateway(self, cluster_tag: str) -> NatGateway | None:
        """The cluster's NAT gateway unless deleted."""

    def create_nat_gateway(self, cluster_tag: str, subnet_id: str, allocation_id: str) -> NatGateway: ...

    def delete_nat_gateway(self, gateway_id: str) -> None: ...

    def find_route_table(self, cluster_tag: str, role: str) -> RouteTable | None: ...

    def create_route_table(self, cluster_tag: str, role: str, vpc_id: str) -> RouteTable: ...

    def add_default_route(self, route_table_id: str, target_id: str) -> None: ...

    def associate_route_table(self, route_table_id: str, subnet_id: str) -> None: ...

    def delete_route_table(self, route_table_id: str) -> None: ...

    def find_s3_endpoint(self, cluster_tag: str) -> str | None: ...

    def create_s3_endpoint(self, cluster_tag: str, vpc_id: str, route_table_ids: list[str]) -> str: ...

    def delete_endpoint(self, endpoint_id: str) -> None: ...

    def find_security_group(self, cluster_tag: str) -> str | None: ...

    def create_security_group(self, cluster_tag: str, vpc_id: str) -> str: ...

    def allow_traffic_within_group(self, group_id: str) -> None: ...

    def delete_security_group(self, group_id: str) -> None: ...
