"""Scaling a model server to zero: the one update that stops a server (its callers get no answer), so it is planned
first and done only with the plan's confirmation token. A request without one is refused with the plan and its
token (`confirmation_asked`), the PATCH's 200 meaning the change was made. Not here: the update's explicit diff
(`service`) or the pool's scale-in rule (`pool`)."""

from __future__ import annotations

from contextlib import AbstractContextManager, nullcontext

from controlplane.core.auth import Actor
from controlplane.core.confirmations import Confirmations, confirmation_asked, fingerprint
from controlplane.core.ports.serving import ServingGateway
from controlplane.core.serving.manifest import MODEL_LABEL, SERVICE_API
from controlplane.core.serving.target import ServingTarget
from controlplane.models.clusters import Plan, PlannedAction
from controlplane.models.serving import UpdateDeploymentRequest

SCALE_TO_ZERO_ACTION = "scale-deployment-to-zero"
# The Services of one model server: a handful (its own, and a pool's bindings).
MAX_SERVICES = 100


class ScaleToZero:
    def __init__(self, confirmations: Confirmations, reads: ServingGateway) -> None:
        self._confirmations = confirmations
        self._reads = reads

    def confirmed(
        self,
        target: ServingTarget,
        name: str,
        request: UpdateDeploymentRequest,
        replicas: int,
        token: str | None,
        actor: Actor,
    ) -> AbstractContextManager[None]:
        """The block that patches the server: free unless the request scales a running server (`replicas` now) to
        zero; then it redeems the token of that plan, or (no token) raises the refusal carrying the plan."""
        if request.replicas != 0 or replicas == 0:
            return nullcontext()
        cluster_tag = target.record.clusterTag
        actions = self._plan(target, name, replicas)
        subject, state = f"{cluster_tag}/{name}", fingerprint([request, *actions])
        if token:
            how = f"Send the same PATCH /clusters/{cluster_tag}/deployments/{name} without a token"
            return self._confirmations.redeeming(token, actor, SCALE_TO_ZERO_ACTION, subject, how, state)
        issued, expires_at = self._confirmations.issue(actor, SCALE_TO_ZERO_ACTION, subject, state)
        raise confirmation_asked(
            Plan(
                actions=actions,
                confirmationToken=issued,
                expiresAt=expires_at,
                message=f"Scaling {name} to 0 replicas stops its model server: its callers get no answer until it is "
                "scaled up again. Ask the person to confirm, then repeat the request with confirmationToken.",
            )
        )

    def _plan(self, target: ServingTarget, name: str, replicas: int) -> list[PlannedAction]:
        """The Deployment that stops, and its Services, kept but answering nothing while no replica runs."""
        services = self._reads.select(
            target.cluster,
            target.region,
            SERVICE_API,
            "Service",
            target.namespace,
            {MODEL_LABEL: name},
            MAX_SERVICES,
            None,
        ).items
        return [
            PlannedAction(
                action="update",
                resource="Deployment",
                name=f"{target.namespace}/{name}",
                detail=f"replicas {replicas} -> 0: every pod of the model server stops",
            ),
            *(
                PlannedAction(
                    action="keep",
                    resource="Service",
                    name=f"{target.namespace}/{service['metadata']['name']}",
                    detail="kept; answers nothing while no replica runs",
                )
                for service in services
            ),
        ]
