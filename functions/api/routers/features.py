"""/clusters/{clusterTag}/features: the Advanced Features panel (live state, explicit-diff update)."""

from __future__ import annotations

from typing import Annotated

from aws_lambda_powertools.event_handler import Response
from aws_lambda_powertools.event_handler.openapi.params import Query

from api.authorization import READ, Routes, admin
from api.context import plan_or_run
from api.routers.params import ClusterTagPath
from api.routers.responses import response_doc
from controlplane import wiring
from controlplane.models.features import FeaturesUpdate, FeaturesView, UpdateFeaturesRequest

router = Routes()


@router.get(
    "/clusters/<clusterTag>/features",
    allow=READ,
    operation_id="hyperpod_get_advanced_features",
    summary="Read the cluster's advanced features as they are now",
    description=(
        "Live state of every feature (cert-manager, tiered checkpointing, HyperPod training operator, ...), read "
        "from the HyperPod cluster, the EKS add-ons, IAM and Kubernetes: enabled, state (enabled, disabled or "
        "partial = half-built), settings, what exists, and which features each one requires. Read this before "
        "hyperpod_update_advanced_features and after its operation finishes."
    ),
    tags=["features"],
)
def get_features(clusterTag: ClusterTagPath) -> FeaturesView:
    return wiring.features().view(clusterTag)


@router.patch(
    "/clusters/<clusterTag>/features",
    allow=admin("change cluster features"),
    operation_id="hyperpod_update_advanced_features",
    summary="Enable, disable (remove) or reconfigure advanced features (explicit diff)",
    description=(
        'Send only the features to change, e.g. {"tieredStorage": {"enabled": true}}; a feature you omit is '
        "never touched. Each named feature is compared with its live state: the result says per feature "
        "unchanged, enabled, disabled or updated. When anything changes, one operation runs with one stage per "
        "changed feature (202; wait with operation_wait); when nothing changes, 200 and no operation. Disabling "
        "removes exactly what enabling created. Dependencies are enforced: trainingOperator needs certManager "
        "(enable both in one request if needed); disabling a feature another enabled feature needs is refused "
        "with 409 naming it. Destructive when it disables anything (disabling deletes IAM roles, add-ons and, "
        "for the inference operator, a bucket): without confirmationToken that returns the plan and a "
        "single-use token (200) and changes nothing; show the plan to the person, then repeat with the token. "
        "dryRun=true returns the outcomes and actions without changing anything."
    ),
    tags=["features"],
    responses={
        202: response_doc(FeaturesUpdate, "Operation started for the changed features"),
        200: response_doc(FeaturesUpdate, "Nothing to change, or the plan (dryRun=true, or a disable without a token)"),
    },
)
def update_features(
    clusterTag: ClusterTagPath,
    body: UpdateFeaturesRequest,
    confirmationToken: Annotated[str | None, Query(description="Token from a prior plan (disables).")] = None,
    dryRun: Annotated[bool, Query(description="Return the outcomes and actions without doing anything.")] = False,
) -> Response[str]:
    service = wiring.features()
    return plan_or_run(
        router,
        dry_run=dryRun,
        scope=f"PATCH /clusters/{clusterTag}/features",
        body={**body.model_dump(mode="json"), "confirmationToken": confirmationToken},
        plan=lambda caller: service.dry_run(clusterTag, body, caller),
        run=lambda caller: service.update(clusterTag, body, confirmationToken, caller),
        status=lambda result: 202 if result.operationId else 200,
    )
