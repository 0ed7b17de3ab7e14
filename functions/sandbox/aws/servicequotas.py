"""Service Quotas as a new account sees them, adjustable (`/sandbox/quotas`), so each pre-flight refusal can be
tried: moto answers GetServiceQuota for VPC quotas only and has no ListServiceQuotas.

The table holds the quotas the control plane reads, with AWS's codes where they are known (the SageMaker codes
are the sandbox's own; callers find codes by name, as in AWS):
- one SageMaker "<type> for cluster usage" quota per known HyperPod instance type: 2 for the high-end types
  (p4d, p5, p6, Trainium), whose new-account quotas are small or 0, and 100 for the others (a test module adds
  dozens of small groups).
- VPCs, internet gateways, NAT gateways per AZ and Elastic IPs at AWS's new-account default, 5 each (the Region's
  default VPC counts among the VPCs, as in AWS: a person can create four clusters per Region), and EKS clusters at
  AWS's 100. `PUT /sandbox/quotas` raises or lowers any of them (tests that build many clusters raise them).
"""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import dataclass, replace
from typing import Any

from moto.servicequotas.exceptions import NoSuchResource
from moto.servicequotas.resources.default_quotas.vpc import VPC_DEFAULT_QUOTAS
from moto.servicequotas.responses import ServiceQuotasResponse

from controlplane.models.instance_types import INSTANCE_TYPES
from sandbox.aws.patches import Patches

HIGH_END_FAMILIES = ("ml.p4", "ml.p5", "ml.p6", "ml.trn")
HIGH_END_CLUSTER_USAGE = 2
CLUSTER_USAGE = 100
_VPC_NAMES = ("VPCs per Region", "Internet gateways per Region", "NAT gateways per Availability Zone")
NEW_ACCOUNT_NETWORK_QUOTA = 5
EKS_CLUSTERS = 100


@dataclass(frozen=True)
class SandboxQuota:
    service_code: str
    code: str
    name: str
    value: int
    adjustable: bool = True

    def wire(self, region: str, account: str) -> dict[str, Any]:
        return {
            "ServiceCode": self.service_code,
            "ServiceName": self.service_code,
            "QuotaArn": f"arn:aws:servicequotas:{region}:{account}:{self.service_code}/{self.code}",
            "QuotaCode": self.code,
            "QuotaName": self.name,
            "Value": float(self.value),
            "Unit": "None",
            "Adjustable": self.adjustable,
            "GlobalQuota": False,
        }


def cluster_usage_code(instance_type: str) -> str:
    return "L-" + hashlib.sha256(instance_type.encode()).hexdigest()[:8].upper()


def default_quotas() -> list[SandboxQuota]:
    vpc = [
        SandboxQuota("vpc", str(q["QuotaCode"]), str(q["QuotaName"]), NEW_ACCOUNT_NETWORK_QUOTA)
        for q in VPC_DEFAULT_QUOTAS
        if q["QuotaName"] in _VPC_NAMES
    ]
    sagemaker = [
        SandboxQuota(
            "sagemaker",
            cluster_usage_code(name),
            f"{name} for cluster usage",
            HIGH_END_CLUSTER_USAGE if name.startswith(HIGH_END_FAMILIES) else CLUSTER_USAGE,
        )
        for name in INSTANCE_TYPES
    ]
    return [
        *vpc,
        SandboxQuota("ec2", "L-0263D0A3", "EC2-VPC Elastic IPs", NEW_ACCOUNT_NETWORK_QUOTA),
        SandboxQuota("eks", "L-1194D53C", "Clusters", EKS_CLUSTERS),
        *sagemaker,
    ]


class QuotaTable:
    """The quotas of every Region (each starts at the defaults); `set` changes one Region's applied value."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._defaults = {(q.service_code, q.code): q for q in default_quotas()}
        self._regions: dict[str, dict[tuple[str, str], SandboxQuota]] = {}

    def quotas(self, region: str, service_code: str) -> list[SandboxQuota]:
        with self._lock:
            return [q for (service, _), q in self._region(region).items() if service == service_code]

    def set(self, region: str, service_code: str, name: str, value: int) -> SandboxQuota:
        """Set the quota named `name`; KeyError when the service has no such quota."""
        with self._lock:
            quotas = self._region(region)
            key = next((key for key, quota in quotas.items() if (key[0], quota.name) == (service_code, name)), None)
            if key is None:
                raise KeyError(f"no quota named '{name}' in {service_code}")
            quotas[key] = replace(quotas[key], value=value)
            return quotas[key]

    def _region(self, region: str) -> dict[tuple[str, str], SandboxQuota]:
        return self._regions.setdefault(region, dict(self._defaults))


class ServiceQuotasExtension:
    """GetServiceQuota and ListServiceQuotas answered from a `QuotaTable`."""

    def __init__(self, table: QuotaTable) -> None:
        self._table = table
        self._patches = Patches()

    def install(self) -> None:
        table = self._table

        def list_service_quotas(response: ServiceQuotasResponse) -> str:
            params = json.loads(response.body)
            region, account = response.region, response.current_account
            quotas = table.quotas(region, str(params.get("ServiceCode")))
            return json.dumps({"Quotas": [quota.wire(region, account) for quota in quotas]})

        def get_service_quota(response: ServiceQuotasResponse) -> str:
            params = json.loads(response.body)
            region, account = response.region, response.current_account
            for quota in table.quotas(region, str(params.get("ServiceCode"))):
                if quota.code == params.get("QuotaCode"):
                    return json.dumps({"Quota": quota.wire(region, account)})
            raise NoSuchResource

        self._patches.replace(ServiceQuotasResponse, "list_service_quotas", list_service_quotas)
        self._patches.replace(ServiceQuotasResponse, "get_service_quota", get_service_quota)

    def uninstall(self) -> None:
        self._patches.restore()
