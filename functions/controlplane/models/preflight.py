"""Pre-flight checks: what a creating or growing request needs (quotas, addresses, capacity) against what the
account has, as a plan lists them and a refusal names them; and the quotas view agents read before asking."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from controlplane.models.common import View

CheckStatus = Literal["pass", "warn", "fail"]


class PreflightCheck(View):
    """One check: `fail` refuses the request, `warn` (data unavailable, close to the limit) never blocks."""

    check: str = Field(description="What was checked, e.g. 'quota: ml.g6.4xlarge for cluster usage'.")
    status: CheckStatus
    have: int | None = Field(default=None, description="What is left: quota minus usage, free addresses, …")
    need: int | None = Field(default=None, description="What the request needs of it.")
    fix: str | None = Field(default=None, description="What to change or where to raise the limit.")
    quotaCode: str | None = Field(default=None, description="The Service Quotas code, for a quota check.")
    serviceCode: str | None = None
    limit: int | None = Field(default=None, description="The quota's applied value.")
    used: int | None = Field(default=None, description="Current usage in the account, read live.")


class QuotaView(View):
    serviceCode: str
    quotaCode: str
    name: str
    value: int = Field(description="The applied quota value.")
    used: int | None = Field(default=None, description="Current usage in the account, read live.")
    available: int | None = None
    adjustable: bool


class QuotaList(View):
    region: str
    instanceType: str | None = None
    quotas: list[QuotaView]
    warnings: list[str] = Field(default_factory=list, description="Quotas that could not be read.")
