"""/me: who the caller is and the role the API enforces for them (the console reads it after sign-in)."""

from __future__ import annotations

from api.authorization import READ, Routes
from api.context import actor
from controlplane.models.identity import IdentityView

router = Routes()


@router.get(
    "/me",
    allow=READ,
    operation_id="identity_get",
    summary="Who am I: the caller's principal, sign-in source and role",
    description=(
        "The identity every other call is authorized as, and its role: viewer (read), operator (jobs, inference, "
        "storage) or admin (cluster lifecycle, features, destructive actions). Call it first to know what you may do."
    ),
    tags=["identity"],
)
def get_identity() -> IdentityView:
    caller = actor(router)
    return IdentityView.model_validate(
        {"principal": caller.principal, "source": caller.source, "role": caller.role.name.lower(), "via": caller.via}
    )
