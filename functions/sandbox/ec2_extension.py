"""What moto lacks for EC2: `tag:` filters on DescribeNatGateways (real EC2 supports them)."""

from __future__ import annotations

from typing import Any

from moto.ec2.models.nat_gateways import NatGatewayBackend


class Ec2Extension:
    def __init__(self) -> None:
        self._original: Any = None

    def install(self) -> None:
        original = self._original = NatGatewayBackend.describe_nat_gateways

        def describe_nat_gateways(backend: Any, filters: Any, nat_gateway_ids: Any) -> Any:
            gateways = original(backend, filters, nat_gateway_ids)
            for name, values in (filters or {}).items():
                if name.startswith("tag:"):
                    key = name[4:]
                    gateways = [
                        gateway
                        for gateway in gateways
                        if {t["key"]: t["value"] for t in gateway.get_tags()}.get(key) in values
                    ]
            return gateways

        NatGatewayBackend.describe_nat_gateways = describe_nat_gateways  # type: ignore[method-assign]

    def uninstall(self) -> None:
        if self._original is not None:
            NatGatewayBackend.describe_nat_gateways = self._original  # type: ignore[method-assign]
