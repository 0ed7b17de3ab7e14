"""The deployment unit tests run as: the default name, in us-east-1 of the `aws` partition."""

from __future__ import annotations

from controlplane.core.naming import DEFAULT_DEPLOYMENT_NAME, Deployment

DEPLOYMENT = Deployment(name=DEFAULT_DEPLOYMENT_NAME, region="us-east-1", partition="aws")
