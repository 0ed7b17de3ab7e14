"""What moto lacks for EC2: ``tag:`` filters on DescribeNatGateways (real EC2 supports them), and subnets whose
``AvailableIpAddressCount`` counts the addresses simulated HyperPod nodes hold (moto counts its own ENIs only).

moto finds one resource's tags by matching a pattern against every tagged resource of the account, for every
resource a filtered Describe call looks at; they are read by the resource's ID instead.

Patches moto's NAT gateway backend, subnet model and tagged resources.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from moto.ec2.models.core import TaggedEC2Resource
from moto.ec2.models.nat_gateways import NatGatewayBackend
from moto.ec2.models.subnets import Subnet
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
        self._patches.replace(TaggedEC2Resource, "get_tags", get_tags)
        self._patches.replace(
            Subnet, "available_ip_address_count", property(lambda subnet: free.__get__(subnet) - held(subnet.id))
        )

    def uninstall(self) -> None:
        self._patches.restore()
