"""The pre-flight checks as pure rules: what a request needs against what the account has, each a
`PreflightCheck` that passes, warns (close to the limit, data unavailable: never blocks) or fails (refuses)."""

from __future__ import annotations

from datetime import datetime

from controlplane.core.network.plan import COMPUTE_SUBNET_PREFIX
from controlplane.core.ports.account import TrainingPlan
from controlplane.core.ports.quotas import Quota
from controlplane.models.errors import PreflightFailedError
from controlplane.models.instance_types import instance_type
from controlplane.models.preflight import CheckStatus, PreflightCheck

# A request that leaves less than this share of a quota free warns (it still goes through).
CLOSE_TO_LIMIT = 0.8
# A new compute subnet's free addresses: a /20 less the five AWS reserves in every subnet.
NEW_COMPUTE_SUBNET_ADDRESSES = 2 ** (32 - COMPUTE_SUBNET_PREFIX) - 5
# Service Quotas names (looked up by name, their codes read from the account's ListServiceQuotas).
VPCS_PER_REGION = ("vpc", "VPCs per Region")
INTERNET_GATEWAYS_PER_REGION = ("vpc", "Internet gateways per Region")
NAT_GATEWAYS_PER_ZONE = ("vpc", "NAT gateways per Availability Zone")
ELASTIC_IPS = ("ec2", "EC2-VPC Elastic IPs")
EKS_CLUSTERS = ("eks", "Clusters")


def cluster_usage_quota_name(instance_type_name: str) -> str:
    """The SageMaker quota on HyperPod instances of one type, across the account's clusters in a Region."""
    return f"{instance_type_name} for cluster usage"


def raise_hint(service_code: str, quota_code: str, region: str, desired: int) -> str:
    return (
        f"Request an increase to at least {desired} in the Service Quotas console "
        f"(https://{region}.console.aws.amazon.com/servicequotas/home/services/{service_code}/quotas/{quota_code}) "
        f"or with the API: RequestServiceQuotaIncrease ServiceCode={service_code} QuotaCode={quota_code} "
        f"DesiredValue={desired}."
    )


def quota_check(label: str, quota: Quota | None, used: int, need: int, region: str) -> PreflightCheck:
    """`need` more of what `quota` limits, with `used` in the account already."""
    check = f"quota: {label}"
    if quota is None:
        return PreflightCheck(
            check=check,
            status="warn",
            need=need,
            used=used,
            fix="The account reports no such quota in this Region (or Service Quotas could not be read); check it "
            "in the Service Quotas console before relying on the request.",
        )
    have = max(0, quota.value - used)
    status: CheckStatus = "fail" if need > have else "warn" if used + need > CLOSE_TO_LIMIT * quota.value else "pass"
    fix = None
    if status == "fail":
        fix = raise_hint(quota.service_code, quota.quota_code, region, used + need)
    elif status == "warn":
        fix = f"Close to the limit ({used + need} of {quota.value}); consider raising it. " + raise_hint(
            quota.service_code, quota.quota_code, region, used + need
        )
    return PreflightCheck(
        check=check,
        status=status,
        have=have,
        need=need,
        fix=fix,
        quotaCode=quota.quota_code,
        serviceCode=quota.service_code,
        limit=quota.value,
        used=used,
    )


def addresses_per_instance(instance_type_name: str, network_interface: str | None) -> int:
    """IPv4 addresses one instance takes in its subnet: one per EFA interface (each is an ENI with an address),
    at least the primary one; `efa-only` interfaces take none, so such an instance takes the primary's only."""
    if network_interface == "efa-only":
        return 1
    known = instance_type(instance_type_name)
    return max(1, known.efa_interfaces if known else 1)


def addresses_check(
    subnet: str,
    free: int,
    instances: int,
    instance_type_name: str,
    network_interface: str | None,
    dedicated: bool,
) -> PreflightCheck:
    """`instances` more instances of the type in a subnet with `free` addresses; a shortfall suggests what the
    seed does: a dedicated subnet for a large group, or `efa-only` interfaces where the type allows them."""
    per_instance = addresses_per_instance(instance_type_name, network_interface)
    need = instances * per_instance
    check = f"addresses: {subnet}"
    if need <= free:
        status: CheckStatus = "warn" if need > CLOSE_TO_LIMIT * free else "pass"
        fix = (
            "Pods on these nodes take addresses from the same subnet; a dedicated subnet leaves more."
            if (status == "warn")
            else None
        )
        return PreflightCheck(check=check, status=status, have=free, need=need, fix=fix)
    suggestions = []
    if not dedicated and need <= NEW_COMPUTE_SUBNET_ADDRESSES:
        suggestions.append(
            f"set dedicatedSubnet=true: the group gets its own /{COMPUTE_SUBNET_PREFIX} "
            f"({NEW_COMPUTE_SUBNET_ADDRESSES} addresses)"
        )
    known = instance_type(instance_type_name)
    if network_interface != "efa-only" and known is not None and known.efa_only_capable:
        suggestions.append(f"set networkInterface=efa-only: {instances} addresses instead of {need}")
    if not suggestions:
        suggestions.append("split the group into smaller groups, each in its own dedicated subnet")
    return PreflightCheck(
        check=check,
        status="fail",
        have=free,
        need=need,
        fix=f"{instances} x {instance_type_name} need {need} addresses ({per_instance} each); "
        + "; or ".join(suggestions)
        + ".",
    )


def capacity_checks(plan: TrainingPlan, need: int, now: datetime) -> list[PreflightCheck]:
    """The plan's remaining capacity and its window against the instances asked for."""
    available = plan.instance_count if plan.available_count is None else plan.available_count
    capacity = PreflightCheck(
        check=f"capacity: training plan {plan.name}",
        status="pass" if need <= available else "fail",
        have=available,
        need=need,
        fix=None
        if need <= available
        else f"Training plan {plan.name} has {available} of {plan.instance_count} instances left; ask for at most "
        f"{available}, free some, or buy another plan.",
    )
    window = PreflightCheck(check=f"capacity window: training plan {plan.name}", status="pass")
    if plan.end_time is not None and plan.end_time <= now:
        window = window.model_copy(
            update={"status": "fail", "fix": f"Training plan {plan.name} ended at {plan.end_time.isoformat()}."}
        )
    elif plan.start_time is not None and plan.start_time > now:
        window = window.model_copy(
            update={
                "status": "warn",
                "fix": f"Training plan {plan.name} starts at {plan.start_time.isoformat()}; instances wait until then.",
            }
        )
    return [capacity, window]


def spot_check() -> PreflightCheck:
    return PreflightCheck(
        check="capacity: spot",
        status="warn",
        fix="Spot instances are interruptible: HyperPod may lose them at any time; use them for workloads that "
        "checkpoint and resume.",
    )


def refuse_failures(checks: list[PreflightCheck]) -> None:
    """Refuse (4xx) when any check fails, naming each failing check and its fix."""
    failed = [check for check in checks if check.status == "fail"]
    if not failed:
        return
    reasons = "; ".join(
        f"{check.check}"
        + (f" [{check.quotaCode}]" if check.quotaCode else "")
        + (f": need {check.need}, have {check.have}." if check.need is not None else ":")
        + f" {check.fix}"
        for check in failed
    )
    raise PreflightFailedError(
        f"Pre-flight refused the request before anything was created: {reasons}",
        {"checks": [check.model_dump(exclude_none=True) for check in checks]},
    )
