"""/regions/{region}/quotas: the Service Quotas a cluster needs, with live usage, read before asking the person
for an instance count (the pre-flight every creating request runs reads the same numbers)."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler.openapi.params import Query

from api.authorization import READ, Routes
from api.routers.params import RegionPath
from controlplane import wiring
from controlplane.models.hyperpod import INSTANCE_TYPE_PATTERN
from controlplane.models.preflight import QuotaList

router = Routes()


@router.get(
    "/regions/<region>/quotas",
    allow=READ,
    operation_id="region_get_quotas",
    summary="Read a Region's quotas for a cluster, with current usage",
    description="The HyperPod cluster-usage quota of instanceType (instances across every HyperPod cluster of the "
    "account) and stage 1's VPC, internet gateway, NAT gateway, Elastic IP and EKS cluster quotas, each with its "
    "code, value and live usage. Read before asking the person for an instance count: offer at most `available`, "
    "and say which quota to raise (and its code) when they need more. Creating requests run the same checks; "
    "dryRun=true on them lists every check.",
    tags=["catalog"],
)
def get_quotas(
    region: RegionPath,
    instanceType: Annotated[
        str | None, Query(pattern=INSTANCE_TYPE_PATTERN, description="HyperPod instance type, e.g. ml.g6.4xlarge.")
    ] = None,
) -> QuotaList:
    return wiring.preflight().quotas(region, instanceType)
