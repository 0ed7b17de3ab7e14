"""A cluster's scheduler policy: its one scheduler config (priority classes, fair share, idle sharing).

The first is created as asked; changing or deleting it is planned first and needs the plan's confirmation token
(every queued job is reordered by it). A policy equal to the live one changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable

from controlplane.core.auth import Actor
from controlplane.core.confirmations import Confirmations, confirmation_asked, fingerprint
from controlplane.core.governance.teams import ClusterReader, policy_view
from controlplane.core.naming import Deployment, ownership_tags
from controlplane.core.ports.governance import GovernanceGateway, SchedulerConfig, SchedulerPolicy
from controlplane.models.clusters import Plan, PlannedAction
from controlplane.models.errors import NotFoundError
from controlplane.models.governance import SchedulerPolicyRequest, SchedulerPolicyView

RESOURCE = "cluster scheduler config"


class SchedulerPolicyNotFoundError(NotFoundError):
    code = "SchedulerPolicyNotFound"


class SchedulerPolicyService:
    def __init__(
        self,
        cluster: ClusterReader,
        confirmations: Confirmations,
        deployment: Deployment,
        governance: Callable[[str], GovernanceGateway],
    ) -> None:
        self._cluster = cluster
        self._confirmations = confirmations
        self._deployment = deployment
        self._governance = governance

    def plan_put(self, cluster_tag: str, request: SchedulerPolicyRequest, actor: Actor) -> Plan:
        """Create (no token needed), nothing, or an update with the token that confirms it."""
        _, live = self._live(cluster_tag)
        wanted = _policy(request)
        if live is None:
            return Plan(actions=[PlannedAction(action="create", resource=RESOURCE, name=cluster_tag)])
        if live.policy == wanted:
            return Plan(actions=[], message="The scheduler policy is already this one: nothing to change.")
        token, expires_at = self._confirmations.issue(
            actor, "update-scheduler-policy", cluster_tag, fingerprint([request, policy_view(live)])
        )
        return Plan(
            actions=[PlannedAction(action="update", resource=RESOURCE, name=live.config_id, detail=_describe(wanted))],
            confirmationToken=token,
            expiresAt=expires_at,
            message=f"Changes how every queued job on '{cluster_tag}' is ordered. Ask the person to confirm, then "
            "repeat the request with confirmationToken.",
        )

    def put(
        self, cluster_tag: str, request: SchedulerPolicyRequest, token: str | None, actor: Actor
    ) -> SchedulerPolicyView:
        arn, live = self._live(cluster_tag)
        region = self._cluster(cluster_tag)[0].region
        wanted = _policy(request)
        gateway = self._governance(region)
        if live is None:
            gateway.create_scheduler_config(arn, cluster_tag, wanted, ownership_tags(self._deployment, cluster_tag))
            return policy_view(SchedulerConfig("", wanted, "Creating", 1))
        if live.policy == wanted:
            return policy_view(live)
        if not token:
            raise confirmation_asked(self.plan_put(cluster_tag, request, actor))
        with self._confirmations.redeeming(
            token,
            actor,
            "update-scheduler-policy",
            cluster_tag,
            f"Repeat PUT /clusters/{cluster_tag}/scheduler-policy with dryRun=true",
            fingerprint([request, policy_view(live)]),
        ):
            gateway.update_scheduler_config(live.config_id, live.version, wanted)
        return policy_view(SchedulerConfig(live.config_id, wanted, "Updating", live.version + 1))

    def plan_delete(self, cluster_tag: str, actor: Actor) -> Plan:
        live = self._require(cluster_tag)
        token, expires_at = self._confirmations.issue(
            actor, "delete-scheduler-policy", cluster_tag, fingerprint([policy_view(live)])
        )
        return Plan(
            actions=[PlannedAction(action="delete", resource=RESOURCE, name=live.config_id)],
            confirmationToken=token,
            expiresAt=expires_at,
            message=f"Deletes '{cluster_tag}''s priority classes: jobs naming one are refused until a policy has it "
            "again. Ask the person to confirm, then repeat the request with confirmationToken.",
        )

    def delete(self, cluster_tag: str, token: str, actor: Actor) -> SchedulerPolicyView:
        live = self._require(cluster_tag)
        with self._confirmations.redeeming(
            token,
            actor,
            "delete-scheduler-policy",
            cluster_tag,
            f"Repeat DELETE /clusters/{cluster_tag}/scheduler-policy without a token",
            fingerprint([policy_view(live)]),
        ):
            self._governance(self._cluster(cluster_tag)[0].region).delete_scheduler_config(live.config_id)
        return policy_view(live).model_copy(update={"status": "Deleting"})

    def _live(self, cluster_tag: str) -> tuple[str, SchedulerConfig | None]:
        record, cluster = self._cluster(cluster_tag)
        return cluster.arn, self._governance(record.region).scheduler_config(cluster.arn)

    def _require(self, cluster_tag: str) -> SchedulerConfig:
        _, live = self._live(cluster_tag)
        if live is None:
            raise SchedulerPolicyNotFoundError(
                f"Cluster '{cluster_tag}' has no scheduler policy; create one with PUT "
                f"/clusters/{cluster_tag}/scheduler-policy."
            )
        return live


def _policy(request: SchedulerPolicyRequest) -> SchedulerPolicy:
    return SchedulerPolicy(
        tuple((priority.name, priority.weight) for priority in request.priorityClasses),
        request.fairShare,
        request.idleResourceSharing,
    )


def _describe(policy: SchedulerPolicy) -> str:
    classes = ", ".join(f"{name} ({weight})" for name, weight in policy.priority_classes)
    return f"priority classes {classes}; fair share {'on' if policy.fair_share else 'off'}"
