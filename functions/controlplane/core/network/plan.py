"""Stage 1 planning: the VPC's address plan and what stage 1 creates. Pure functions, no I/O."""

from __future__ import annotations

import ipaddress
from collections.abc import Iterable, Mapping

from controlplane.core.naming import Deployment, eks_cluster_name, eks_cluster_role_name, resource_name, subnet_key
from controlplane.core.ports.account import AvailabilityZone
from controlplane.models.clusters import CidrSource, NetworkPlan, PlannedAction, SubnetPlan, SubnetRole
from controlplane.models.errors import CidrConflictError, InvalidRequestError

# Second octets tried, in order, when the caller gives no CIDR (10.N.0.0/16).
AUTOMATIC_SECOND_OCTETS = (*range(90, 100), *range(100, 111), *range(120, 131), *range(150, 161), *range(180, 191))
AZ_COUNT = 2
SUBNET_PREFIX = 24
# /24 block index inside the VPC per subnet: private (EKS) first, then public.
SUBNET_BLOCKS: dict[tuple[SubnetRole, int], int] = {
    ("private", 0): 7,
    ("private", 1): 8,
    ("public", 0): 10,
    ("public", 1): 11,
}


def choose_vpc_cidr(existing: Mapping[str, str], requested: str | None) -> tuple[str, CidrSource]:
    """Return (cidr, source); refuse a requested CIDR that overlaps a VPC in the Region."""
    taken = [(vpc_id, ipaddress.IPv4Network(cidr)) for vpc_id, cidr in existing.items()]
    if requested is not None:
        network = ipaddress.IPv4Network(requested)
        clashes = sorted(f"{vpc_id} ({cidr})" for vpc_id, cidr in taken if cidr.overlaps(network))
        if clashes:
            raise CidrConflictError(
                f"VPC CIDR {requested} overlaps {', '.join(clashes)} in this Region; "
                "choose a range that does not overlap, or omit vpcCidr to pick a free one.",
                {"vpcCidr": requested, "overlaps": clashes},
            )
        return requested, "caller"
    for octet in AUTOMATIC_SECOND_OCTETS:
        candidate = ipaddress.IPv4Network(f"10.{octet}.0.0/16")
        if not any(cidr.overlaps(candidate) for _, cidr in taken):
            return str(candidate), "automatic"
    raise CidrConflictError("No free 10.N.0.0/16 range is left in this Region; pass vpcCidr with a free private range.")


def plan_network(existing: Mapping[str, str], requested: str | None, zones: Iterable[AvailabilityZone]) -> NetworkPlan:
    """Pick the VPC CIDR and lay out one public and one private /24 in each of two AZs."""
    zone_names = sorted(zone.name for zone in zones)[:AZ_COUNT]
    if len(zone_names) < AZ_COUNT:
        raise InvalidRequestError(f"EKS needs subnets in {AZ_COUNT} Availability Zones; this Region has fewer.")
    cidr, source = choose_vpc_cidr(existing, requested)
    blocks = list(ipaddress.IPv4Network(cidr).subnets(new_prefix=SUBNET_PREFIX))
    subnets = [
        SubnetPlan(role=role, index=index, cidr=str(blocks[block]), availabilityZone=zone_names[index])
        for (role, index), block in SUBNET_BLOCKS.items()
    ]
    return NetworkPlan(vpcCidr=cidr, cidrSource=source, subnets=subnets)


def stage_one_actions(
    deployment: Deployment, cluster_tag: str, network: NetworkPlan, kubernetes_version: str
) -> list[PlannedAction]:
    """What stage 1 creates: the network, the cluster role, the EKS cluster and the control plane's access."""
    tag = cluster_tag

    def create(resource: str, name: str, detail: str | None = None) -> PlannedAction:
        return PlannedAction(action="create", resource=resource, name=name, detail=detail)

    return [
        create("AWS::EC2::VPC", resource_name(tag, "vpc"), f"{network.vpcCidr} ({network.cidrSource})"),
        *[
            create(
                "AWS::EC2::Subnet",
                resource_name(tag, subnet_key(s.role, s.index)),
                f"{s.cidr} in {s.availabilityZone}",
            )
            for s in network.subnets
        ],
        create("AWS::EC2::InternetGateway", resource_name(tag, "igw")),
        create("AWS::EC2::NatGateway", resource_name(tag, "nat")),
        create("AWS::EC2::RouteTable", resource_name(tag, "public-rt")),
        create("AWS::EC2::RouteTable", resource_name(tag, "private-rt")),
        create("AWS::EC2::VPCEndpoint", resource_name(tag, "s3-endpoint")),
        create("AWS::EC2::SecurityGroup", resource_name(tag, "cluster-sg")),
        create("AWS::IAM::Role", eks_cluster_role_name(deployment, tag)),
        create(
            "AWS::EKS::Cluster",
            eks_cluster_name(tag),
            f"Kubernetes {kubernetes_version}, authenticationMode API_AND_CONFIG_MAP",
        ),
        create("AWS::EKS::AccessEntry", "control-plane role", "AmazonEKSClusterAdminPolicy, cluster scope"),
    ]


COMPUTE_SUBNET_PREFIX = 20


def free_block(vpc_cidr: str, taken: list[str], prefix: int = COMPUTE_SUBNET_PREFIX) -> str:
    """The first /prefix block of the VPC that overlaps no existing subnet (compute subnets are /20)."""
    used = [ipaddress.IPv4Network(cidr) for cidr in taken]
    for block in ipaddress.IPv4Network(vpc_cidr).subnets(new_prefix=prefix):
        if not any(block.overlaps(subnet) for subnet in used):
            return str(block)
    raise InvalidRequestError(
        f"VPC {vpc_cidr} has no free /{prefix} left for a compute subnet; delete unused subnets or instance groups."
    )
