"""What moto lacks for EC2: ``tag:`` filters on DescribeNatGateways (real EC2 supports them).

Patches moto's NAT gateway backend.
"""

from __future__ import annotations

from typing import Any

from moto.ec2.models.nat_gateways import NatGatewayBackend

from sandbox.aws.patches import Patches


class Ec2Extension:
    def __init__(self) -> None:
        self._patches = Patches()

    def install(self) -> None:
        original = NatGatewayBackend.describe_nat_gateways

        def describe_nat_gateways(backend: Any, filters: Any, nat_gateway_ids: Any) -> Any:
            gateways = original(backend, filters, nat_gateway_ids)
            for name, values in (filters or {}).items():
                if name.startswith("tag:"):
                    key = name[4:]
                    gateways = [g for g in gateways if {t["key"]: t["value"] for t in g.get_tags()}.get(key) in values]
            return gateways

        self._patches.replace(NatGatewayBackend, "describe_nat_gateways", describe_nat_gateways)

    def uninstall(self) -> None:
        self._patches.restore()
