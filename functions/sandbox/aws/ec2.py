"""What moto lacks for EC2: ``tag:`` filters on DescribeNatGateways (real EC2 supports them), subnets whose
``AvailableIpAddressCount`` counts the addresses simulated HyperPod nodes hold (moto counts its own ENIs only), a NAT
gateway whose deletion deletes its network interface and disassociates its Elastic IP (moto keeps both), and a subnet
that cannot be deleted while a network interface is in it (moto deletes it).

moto finds one resource's tags by matching a pattern against every tagged resource of the account, for every
resource a filtered Describe call looks at; they are read by the resource's ID instead.

Patches moto's NAT gateway and subnet backends, subnet model and tagged resources.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from moto.ec2.exceptions import DependencyViolationError
from moto.ec2.models.core import TaggedEC2Resource
from moto.ec2.models.nat_gateways import NatGateway, NatGatewayBackend
from moto.ec2.models.subnets import Subnet, SubnetBackend
from moto.ec2.utils import EC2_PREFIX_TO_RESOURCE, get_prefix

from sandbox.aws.patches import Patches


class Ec2Extension:
    """`addresses_held(subnet_id)`: addresses simulated instances hold in a subnet, beyond moto's own ENIs."""

    def __init__(self, addresses_held: Callable[[str], int]) -> None:
        self._addresses_held = addresses_held
        self._patches = Patches()

    def install(self) -> None:
        original = NatGatewayBackend.describe_nat_gateways
        free: property = vars(Subnet)["available_ip_address_count"]
        held = self._addresses_held

        def describe_nat_gateways(backend: Any, filters: Any, nat_gateway_ids: Any) -> Any:
            gateways = original(backend, filters, nat_gateway_ids)
            for name, values in (filters or {}).items():
                if name.startswith("tag:"):
                    key = name[4:]
                    gateways = [g for g in gateways if {t["key"]: t["value"] for t in g.get_tags()}.get(key) in values]
            return gateways

        def get_tags(resource: Any) -> list[dict[str, str]]:
            tags = resource.ec2_backend.tags.get(resource.id, {}) if resource.id else {}
            kind = EC2_PREFIX_TO_RESOURCE.get(get_prefix(resource.id), "") if tags else ""
            return [{"resource_id": resource.id, "key": k, "value": v, "resource_type": kind} for k, v in tags.items()]

        self._patches.replace(NatGatewayBackend, "describe_nat_gateways", describe_nat_gateways)
        self._patches.replace(NatGatewayBackend, "delete_nat_gateway", _deleting_its_interface(NatGatewayBackend))
        self._patches.replace(SubnetBackend, "delete_subnet", _refused_while_in_use(SubnetBackend))
        self._patches.replace(TaggedEC2Resource, "get_tags", get_tags)
        self._patches.replace(
            Subnet, "available_ip_address_count", property(lambda subnet: free.__get__(subnet) - held(subnet.id))
        )

    def uninstall(self) -> None:
        self._patches.restore()


def _deleting_its_interface(backend_class: type) -> Callable[..., NatGateway]:
    """Deleting a NAT gateway deletes its network interface and disassociates its Elastic IP, which stays allocated
    (Amazon VPC User Guide, "Delete a NAT gateway")."""
    original = backend_class.delete_nat_gateway  # type: ignore[attr-defined]

    def delete_nat_gateway(backend: Any, nat_gateway_id: str) -> NatGateway:
        gateway: NatGateway = original(backend, nat_gateway_id)
        interface = gateway._eni
        for address in backend.addresses:
            if address.eni is interface:
                backend.disassociate_address(address=address.public_ip)
        backend.enis.pop(interface.id, None)
        return gateway

    return delete_nat_gateway


def _refused_while_in_use(backend_class: type) -> Callable[..., Subnet]:
    """A subnet with a network interface in it is not deleted: DependencyViolation (EC2 API Reference, DeleteSubnet:
    "You must terminate all running instances in the subnet before you can delete the subnet")."""
    original = backend_class.delete_subnet  # type: ignore[attr-defined]

    def delete_subnet(backend: Any, subnet_id: str) -> Subnet:
        if any(interface.subnet.id == subnet_id for interface in backend.enis.values()):
            raise DependencyViolationError(f"The subnet '{subnet_id}' has dependencies and cannot be deleted.")
        return original(backend, subnet_id)

    return delete_subnet
