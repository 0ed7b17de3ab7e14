"""The AWS Price List API (`pricing.GetProducts`), which moto lacks: SageMaker HyperPod products of the sandbox's
instance types, priced on demand per hour (list prices of the US Regions, rounded), the same in every Region.

Answers the filters the control plane sends (productFamily, regionCode, instanceName) with one HyperPod product
(usage type `<region>-Cluster:<type>`) and one SageMaker training product of the same type, so that a reader that
took any SageMaker price would be caught.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from moto.core.botocore_stubber import BotocoreStubber

from sandbox.aws.patches import Patches

# USD per instance-hour on demand.
HOURLY_PRICES = {
    "ml.g5.xlarge": 1.41,
    "ml.g5.2xlarge": 1.52,
    "ml.g5.4xlarge": 2.03,
    "ml.g5.8xlarge": 3.06,
    "ml.g5.12xlarge": 7.09,
    "ml.g5.24xlarge": 10.18,
    "ml.g5.48xlarge": 20.36,
    "ml.g6.xlarge": 1.01,
    "ml.g6.2xlarge": 1.22,
    "ml.g6.4xlarge": 1.65,
    "ml.g6.8xlarge": 2.51,
    "ml.g6.12xlarge": 5.75,
    "ml.g6.24xlarge": 8.30,
    "ml.g6.48xlarge": 16.60,
    "ml.g6e.xlarge": 2.34,
    "ml.g6e.12xlarge": 13.06,
    "ml.g6e.48xlarge": 37.65,
    "ml.p4d.24xlarge": 37.69,
    "ml.p5.48xlarge": 98.32,
    "ml.p5en.48xlarge": 84.80,
    "ml.trn1.32xlarge": 26.86,
    "ml.m5.xlarge": 0.23,
    "ml.m5.2xlarge": 0.46,
    "ml.c5.xlarge": 0.20,
    "ml.t3.medium": 0.05,
}
# A SageMaker training hour costs less than a HyperPod one in these items: a reader must pick the cluster's.
TRAINING_DISCOUNT = 0.9
PRICING_HOST = "api.pricing."


def price_list(region: str, instance_type: str) -> list[str]:
    """The PriceList items (JSON strings, as the API returns them) of one instance type in one Region."""
    hourly = HOURLY_PRICES.get(instance_type)
    if hourly is None:
        return []
    return [
        json.dumps(_item(region, instance_type, f"{region.upper()}-Cluster:{instance_type}", hourly)),
        json.dumps(_item(region, instance_type, f"{region.upper()}-Train:{instance_type}", hourly * TRAINING_DISCOUNT)),
    ]


def _item(region: str, instance_type: str, usage: str, hourly: float) -> dict[str, Any]:
    sku = hashlib.sha256(usage.encode()).hexdigest()[:16].upper()
    return {
        "product": {
            "productFamily": "ML Instance",
            "attributes": {"regionCode": region, "instanceName": instance_type, "usagetype": usage},
            "sku": sku,
        },
        "serviceCode": "AmazonSageMaker",
        "terms": {
            "OnDemand": {
                f"{sku}.JRTCKXETXF": {
                    "priceDimensions": {
                        f"{sku}.JRTCKXETXF.6YS6EN2CT7": {"unit": "Hrs", "pricePerUnit": {"USD": f"{hourly:.4f}"}}
                    }
                }
            }
        },
    }


class PricingExtension:
    """Serves GetProducts for the Price List endpoints before moto looks for a backend (it has none)."""

    def __init__(self) -> None:
        self._patches = Patches()

    def install(self) -> None:
        original = BotocoreStubber.process_request

        def process_request(stubber: BotocoreStubber, request: Any) -> Any:
            if PRICING_HOST not in request.url:
                return original(stubber, request)
            params = json.loads(request.body or b"{}")
            fields = {item["Field"]: item["Value"] for item in params.get("Filters", [])}
            items = price_list(str(fields.get("regionCode", "")), str(fields.get("instanceName", "")))
            body = json.dumps({"FormatVersion": "aws_v1", "PriceList": items})
            return 200, {"Content-Type": "application/x-amz-json-1.1"}, body.encode()

        self._patches.replace(BotocoreStubber, "process_request", process_request)

    def uninstall(self) -> None:
        self._patches.restore()
