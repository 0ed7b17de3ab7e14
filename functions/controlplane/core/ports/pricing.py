"""The AWS Price List: on-demand prices of HyperPod instances."""

from __future__ import annotations

from typing import Protocol


class PriceGateway(Protocol):
    def on_demand_hourly(self, region: str, instance_type: str) -> float | None:
        """USD per instance-hour of the HyperPod instance type on demand in the Region; None when not listed."""
