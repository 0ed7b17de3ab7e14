#!/usr/bin/env python3
"""CDK composition root: the App (with its feature flags), the InstantStart stack (and its nested stacks),
cdk-nag (AwsSolutions) as a validation plugin.

Synthesis fails if cdk-nag reports a finding that is not acknowledged (CDK Validations API).
Run `cdk synth` (see cdk.json), or `python app.py`; add `-c skipLayerBundling=true` (CLI) or the
same context to build without pip/network.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent
if str(ROOT / "functions") not in sys.path:
    sys.path.insert(0, str(ROOT / "functions"))

import aws_cdk as cdk  # noqa: E402
from cdk_nag import AwsSolutionsChecks  # noqa: E402

from controlplane.core.naming import DEFAULT_DEPLOYMENT_NAME  # noqa: E402
from infra.names import deployment_name  # noqa: E402
from infra.stack import InstantStartStack  # noqa: E402

STACK_NAME = "InstantStartStack"
# Feature flags the stack is designed with; cdk.json's context may override them for the CLI.
FEATURE_FLAGS = {
    # Merge IAM statements that differ only in their actions or only in their resources: the same
    # permissions in smaller policies (a step group's role holds the union of its steps' grants).
    "@aws-cdk/aws-iam:minimizePolicies": True,
}


def build(
    context: dict[str, Any] | None = None,
    outdir: str | None = None,
) -> tuple[cdk.App, InstantStartStack]:
    app = cdk.App(context={**FEATURE_FLAGS, **(context or {})}, outdir=outdir)
    deployment = deployment_name(app)
    stack = InstantStartStack(
        app,
        STACK_NAME if deployment == DEFAULT_DEPLOYMENT_NAME else f"{STACK_NAME}-{deployment}",
        description="InstantStart: serverless control plane for SageMaker HyperPod on EKS",
    )
    cdk.Validations.of(app).add_plugins(AwsSolutionsChecks(app, verbose=True))
    return app, stack


if __name__ == "__main__":
    build()[0].synth()
