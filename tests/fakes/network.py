"""EC2 networking in one Region: resources the control plane creates are found by the cluster's ownership tags
and their role (`vpc`, `igw`, `nat`, `<role>-rt`, a subnet's key), like the EC2 adapter; others only by id."""

from __future__ import annotations

import itertools
from dataclasses import replace

from controlplane.core.naming import ROLE_TAG_KEY, Deployment, is_owned, ownership_tags
from controlplane.core.ports.network import InternetGateway, NatGateway, RouteTable, Subnet, Vpc
from tests.fakes.deployment import DEPLOYMENT

DEFAULT_ROUTE = "0.0.0.0/0"


class InMemoryNetworkGateway:
    """`nat_state` is the state a new NAT gateway starts in (AWS: pending; tests settle it); `deployment` tags and
    finds what the control plane creates."""

    def __init__(self, nat_state: str = "available", deployment: Deployment = DEPLOYMENT) -> None:
        self.deployment = deployment
        self.vpcs: dict[str, Vpc] = {}
        self.subnets: dict[str, tuple[Subnet, str, dict[str, str]]] = {}
        self.internet_gateways: dict[str, tuple[InternetGateway, dict[str, str]]] = {}
        self.elastic_ips: dict[str, dict[str, str]] = {}
        self.nat_gateways: dict[str, tuple[NatGateway, str, dict[str, str]]] = {}
        self.route_tables: dict[str, tuple[RouteTable, str, dict[str, str]]] = {}
        self.endpoints: dict[str, tuple[str, list[str], dict[str, str]]] = {}
        self.security_groups: dict[str, tuple[str, dict[str, str]]] = {}
        self.self_referencing_groups: set[str] = set()
        self.nat_state = nat_state
        self._ids = itertools.count(1)

    # --- helpers for tests -------------------------------------------------------------------

    def add_foreign_vpc(self, cidr: str, tags: dict[str, str] | None = None) -> Vpc:
        """A VPC someone else made (an imported cluster's)."""
        vpc = Vpc(vpc_id=self._id("vpc"), cidr=cidr, tags=dict(tags or {}))
        self.vpcs[vpc.vpc_id] = vpc
        return vpc

    def add_route_table(self, vpc_id: str, routes: dict[str, str], subnet_ids: list[str], main: bool = False) -> str:
        table = RouteTable(self._id("rtb"), dict(routes), frozenset(subnet_ids), main)
        self.route_tables[table.route_table_id] = (table, vpc_id, {})
        return table.route_table_id

    # --- VPC ---------------------------------------------------------------------------------

    def find_vpc(self, cluster_tag: str) -> Vpc | None:
        found = next((vpc for vpc in self.vpcs.values() if _ours(self.deployment, vpc.tags, cluster_tag, "vpc")), None)
        return Vpc(vpc_id=found.vpc_id, cidr=found.cidr) if found else None

    def vpc(self, vpc_id: str) -> Vpc | None:
        return self.vpcs.get(vpc_id)

    def vpc_route_tables(self, vpc_id: str) -> list[RouteTable]:
        return [table for table, vpc, _ in self.route_tables.values() if vpc == vpc_id]

    def tag_resource(self, resource_id: str, tags: dict[str, str]) -> None:
        vpc = self.vpcs[resource_id]
        self.vpcs[resource_id] = replace(vpc, tags={**vpc.tags, **tags})

    def untag_resource(self, resource_id: str, keys: list[str]) -> None:
        vpc = self.vpcs.get(resource_id)
        if vpc is not None:
            self.vpcs[resource_id] = replace(vpc, tags={k: v for k, v in vpc.tags.items() if k not in keys})

    def create_vpc(self, cluster_tag: str, cidr: str) -> Vpc:
        vpc = Vpc(vpc_id=self._id("vpc"), cidr=cidr, tags=_tags(self.deployment, cluster_tag, "vpc"))
        self.vpcs[vpc.vpc_id] = vpc
        return Vpc(vpc_id=vpc.vpc_id, cidr=cidr)

    def delete_vpc(self, vpc_id: str) -> None:
        self.vpcs.pop(vpc_id, None)

    # --- subnets -----------------------------------------------------------------------------

    def find_subnets(self, cluster_tag: str) -> dict[str, Subnet]:
        return {
            subnet.key: subnet
            for subnet, _, tags in self.subnets.values()
            if _ours(self.deployment, tags, cluster_tag, subnet.key)
        }

    def vpc_subnet_cidrs(self, vpc_id: str) -> list[str]:
        return [subnet.cidr for subnet, vpc, _ in self.subnets.values() if vpc == vpc_id]

    def create_subnet(
        self, cluster_tag: str, vpc_id: str, key: str, cidr: str, availability_zone: str, public: bool
    ) -> Subnet:
        subnet = Subnet(subnet_id=self._id("subnet"), key=key, cidr=cidr, availability_zone=availability_zone)
        self.subnets[subnet.subnet_id] = (subnet, vpc_id, _tags(self.deployment, cluster_tag, key))
        return subnet

    def delete_subnet(self, subnet_id: str) -> None:
        self.subnets.pop(subnet_id, None)

    # --- internet gateway, elastic IP, NAT gateway -------------------------------------------

    def find_internet_gateway(self, cluster_tag: str) -> InternetGateway | None:
        return next(
            (gw for gw, tags in self.internet_gateways.values() if _ours(self.deployment, tags, cluster_tag, "igw")),
            None,
        )

    def create_internet_gateway(self, cluster_tag: str) -> InternetGateway:
        gateway = InternetGateway(gateway_id=self._id("igw"), attached_vpc_id=None)
        self.internet_gateways[gateway.gateway_id] = (gateway, _tags(self.deployment, cluster_tag, "igw"))
        return gateway

    def attach_internet_gateway(self, gateway_id: str, vpc_id: str) -> None:
        gateway, tags = self.internet_gateways[gateway_id]
        self.internet_gateways[gateway_id] = (replace(gateway, attached_vpc_id=vpc_id), tags)

    def delete_internet_gateway(self, gateway: InternetGateway) -> None:
        self.internet_gateways.pop(gateway.gateway_id, None)

    def find_elastic_ip(self, cluster_tag: str) -> str | None:
        return next(
            (eip for eip, tags in self.elastic_ips.items() if _ours(self.deployment, tags, cluster_tag, "nat-eip")),
            None,
        )

    def allocate_elastic_ip(self, cluster_tag: str) -> str:
        allocation = self._id("eipalloc")
        self.elastic_ips[allocation] = _tags(self.deployment, cluster_tag, "nat-eip")
        return allocation

    def release_elastic_ip(self, allocation_id: str) -> None:
        self.elastic_ips.pop(allocation_id, None)

    def find_nat_gateway(self, cluster_tag: str) -> NatGateway | None:
        return next(
            (
                nat
                for nat, _, tags in self.nat_gateways.values()
                if _ours(self.deployment, tags, cluster_tag, "nat") and nat.state != "deleted"
            ),
            None,
        )

    def create_nat_gateway(self, cluster_tag: str, subnet_id: str, allocation_id: str) -> NatGateway:
        nat = NatGateway(gateway_id=self._id("nat"), state=self.nat_state)
        self.nat_gateways[nat.gateway_id] = (nat, subnet_id, _tags(self.deployment, cluster_tag, "nat"))
        return nat

    def delete_nat_gateway(self, gateway_id: str) -> None:
        if gateway_id in self.nat_gateways:
            nat, subnet, tags = self.nat_gateways[gateway_id]
            self.nat_gateways[gateway_id] = (replace(nat, state="deleting"), subnet, tags)

    def set_nat_state(self, gateway_id: str, state: str) -> None:
        nat, subnet, tags = self.nat_gateways[gateway_id]
        self.nat_gateways[gateway_id] = (replace(nat, state=state), subnet, tags)

    # --- route tables ------------------------------------------------------------------------

    def find_route_table(self, cluster_tag: str, role: str) -> RouteTable | None:
        return next(
            (
                table
                for table, _, tags in self.route_tables.values()
                if _ours(self.deployment, tags, cluster_tag, f"{role}-rt")
            ),
            None,
        )

    def create_route_table(self, cluster_tag: str, role: str, vpc_id: str) -> RouteTable:
        table = RouteTable(route_table_id=self._id("rtb"), routes={}, subnet_ids=frozenset())
        self.route_tables[table.route_table_id] = (table, vpc_id, _tags(self.deployment, cluster_tag, f"{role}-rt"))
        return table

    def add_default_route(self, route_table_id: str, target_id: str) -> None:
        table, vpc, tags = self.route_tables[route_table_id]
        self.route_tables[route_table_id] = (
            replace(table, routes={**table.routes, DEFAULT_ROUTE: target_id}),
            vpc,
            tags,
        )

    def associate_route_table(self, route_table_id: str, subnet_id: str) -> None:
        table, vpc, tags = self.route_tables[route_table_id]
        self.route_tables[route_table_id] = (replace(table, subnet_ids=table.subnet_ids | {subnet_id}), vpc, tags)

    def delete_route_table(self, route_table_id: str) -> None:
        self.route_tables.pop(route_table_id, None)

    # --- S3 endpoint and security group ------------------------------------------------------

    def find_s3_endpoint(self, cluster_tag: str) -> str | None:
        return next(
            (
                ep
                for ep, (_, _, tags) in self.endpoints.items()
                if _ours(self.deployment, tags, cluster_tag, "s3-endpoint")
            ),
            None,
        )

    def create_s3_endpoint(self, cluster_tag: str, vpc_id: str, route_table_ids: list[str]) -> str:
        endpoint = self._id("vpce")
        self.endpoints[endpoint] = (vpc_id, list(route_table_ids), _tags(self.deployment, cluster_tag, "s3-endpoint"))
        return endpoint

    def delete_endpoint(self, endpoint_id: str) -> None:
        self.endpoints.pop(endpoint_id, None)

    def find_security_group(self, cluster_tag: str) -> str | None:
        return next(
            (
                group
                for group, (_, tags) in self.security_groups.items()
                if _ours(self.deployment, tags, cluster_tag, "cluster-sg")
            ),
            None,
        )

    def create_security_group(self, cluster_tag: str, vpc_id: str) -> str:
        group = self._id("sg")
        self.security_groups[group] = (vpc_id, _tags(self.deployment, cluster_tag, "cluster-sg"))
        return group

    def allow_traffic_within_group(self, group_id: str) -> None:
        self.self_referencing_groups.add(group_id)

    def delete_security_group(self, group_id: str) -> None:
        self.security_groups.pop(group_id, None)
        self.self_referencing_groups.discard(group_id)

    def _id(self, prefix: str) -> str:
        return f"{prefix}-{next(self._ids):08x}"


def _tags(deployment: Deployment, cluster_tag: str, role: str) -> dict[str, str]:
    return {**ownership_tags(deployment, cluster_tag), ROLE_TAG_KEY: role}


def _ours(deployment: Deployment, tags: dict[str, str], cluster_tag: str, role: str) -> bool:
    return is_owned(deployment, tags, cluster_tag) and tags.get(ROLE_TAG_KEY) == role
