"""On-demand HyperPod prices from the AWS Price List API (`pricing:GetProducts`), cached per process.

The Price List API answers in us-east-1 (and a few other Regions) for every Region. SageMaker's products are
`ML Instance`s by `regionCode` and `instanceName`; HyperPod's are those whose usage type names a cluster
(`<REGION>-Cluster:ml.<type>`), the others being training, hosting, notebooks and the like.
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any

from controlplane.adapters.aws.session import client

PRICING_REGION = "us-east-1"
SERVICE_CODE = "AmazonSageMaker"
PRODUCT_FAMILY = "ML Instance"
HYPERPOD_USAGE = "Cluster"
# Prices change a few times a year: one lookup per Region and type every 12 hours is plenty.
CACHE_SECONDS = 12 * 3600


class AwsPriceGateway:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._cache: dict[tuple[str, str], tuple[float, float | None]] = {}

    def on_demand_hourly(self, region: str, instance_type: str) -> float | None:
        key = (region, instance_type)
        now = time.monotonic()
        with self._lock:
            cached = self._cache.get(key)
        if cached is not None and now - cached[0] < CACHE_SECONDS:
            return cached[1]
        price = self._lookup(region, instance_type)
        with self._lock:
            self._cache[key] = (now, price)
        return price

    @staticmethod
    def _lookup(region: str, instance_type: str) -> float | None:
        filters = [
            {"Type": "TERM_MATCH", "Field": "productFamily", "Value": PRODUCT_FAMILY},
            {"Type": "TERM_MATCH", "Field": "regionCode", "Value": region},
            {"Type": "TERM_MATCH", "Field": "instanceName", "Value": instance_type},
        ]
        pages = client("pricing", PRICING_REGION).get_paginator("get_products")
        for page in pages.paginate(ServiceCode=SERVICE_CODE, Filters=filters):
            for item in page["PriceList"]:
                price = _hyperpod_hourly(json.loads(item))
                if price is not None:
                    return price
        return None


def _hyperpod_hourly(item: dict[str, Any]) -> float | None:
    """The hourly USD price of a HyperPod product (None for another SageMaker usage)."""
    usage = str(item.get("product", {}).get("attributes", {}).get("usagetype", ""))
    if f"-{HYPERPOD_USAGE}:" not in usage and not usage.startswith(f"{HYPERPOD_USAGE}:"):
        return None
    for term in item.get("terms", {}).get("OnDemand", {}).values():
        for dimension in term.get("priceDimensions", {}).values():
            usd = dimension.get("pricePerUnit", {}).get("USD")
            if usd is not None and dimension.get("unit", "").lower().startswith("hr"):
                return float(usd)
    return None
