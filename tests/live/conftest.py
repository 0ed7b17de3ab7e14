"""The live suite runs against a real AWS account, so it is opt-in: without `IS_LIVE_API_URL` (or `IS_LIVE_DEPLOY=1`)
every test in it is skipped, and the skip says how to run it. `make test` does not run it at all; a bare `pytest`
collects it and skips it without importing boto3 clients or touching the network.
"""

from __future__ import annotations

import os

import pytest

HOW_TO_RUN = (
    "live AWS suite (bills the account: an EKS cluster, a HyperPod instance, NAT gateways for about an hour). Run it "
    "with AWS credentials of an IAM role bound to admin in the stack's iamRoleBindings and either "
    "IS_LIVE_API_URL=<the stack's IamApiUrl output> (a deployed stack) or IS_LIVE_DEPLOY=1 (deploy the stack first "
    "and destroy it after): PYTHONPATH=functions:. .venv/bin/pytest -n 0 -s tests/live. Optional: IS_LIVE_REGION, "
    "IS_LIVE_INSTANCE_TYPE, IS_LIVE_AVAILABILITY_ZONE, IS_LIVE_JOB_IMAGE, IS_LIVE_JOB_COMMAND, IS_LIVE_TIMEOUT_MINUTES "
    "(docs/deploy.md)."
)


def live_account_configured() -> bool:
    return bool(os.environ.get("IS_LIVE_API_URL")) or os.environ.get("IS_LIVE_DEPLOY") == "1"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if live_account_configured():
        return
    skip = pytest.mark.skip(reason=HOW_TO_RUN)
    for item in items:
        if item.path.parent.name == "live":
            item.add_marker(skip)
