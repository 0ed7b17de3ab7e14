"""An in-memory PriceGateway: on-demand hourly prices by (Region, instance type), with every lookup recorded."""

from __future__ import annotations


class InMemoryPriceGateway:
    def __init__(self, prices: dict[tuple[str, str], float] | None = None) -> None:
        self.prices = dict(prices or {})
        self.lookups: list[tuple[str, str]] = []

    def on_demand_hourly(self, region: str, instance_type: str) -> float | None:
        self.lookups.append((region, instance_type))
        return self.prices.get((region, instance_type))
