"""The remediation policy an admin sets per cluster (the API's side; `service` applies it to events).

A policy that replaces nodes (replace, or health-check: a node that fails its checks is replaced) destroys each
unhealthy node's volumes with no one asked at the time, so setting one is planned first and stored only with the
plan's confirmation token, bound to the policy asked for and the one it
replaces. A request without the token is refused with the plan and its token (`confirmation_asked`): the PUT's 200
means the policy is stored. Every other policy (notify, reboot, a replacing one that only records) is stored at once,
and resending the policy in force changes nothing.
"""

from __future__ import annotations

from controlplane.core.auth import Actor
from controlplane.core.confirmations import Confirmations, confirmation_asked, fingerprint
from controlplane.core.ports.events import EventStore
from controlplane.core.ports.persistence import Clock
from controlplane.core.registry import ClusterService
from controlplane.models.clusters import Plan, PlannedAction
from controlplane.models.events import RemediationPolicy, RemediationPolicyView

REPLACING_POLICY_ACTION = "set-replacing-remediation-policy"
# The actions after which a node may be replaced (a deep health check replaces a node that fails it).
REPLACING = {"replace", "health-check"}


class RemediationPolicyService:
    def __init__(self, clusters: ClusterService, store: EventStore, confirmations: Confirmations, clock: Clock) -> None:
        self._clusters = clusters
        self._store = store
        self._confirmations = confirmations
        self._clock = clock

    def policy(self, cluster_tag: str) -> RemediationPolicyView:
        """The cluster's policy; notify (record only) until an admin sets one."""
        self._clusters.get(cluster_tag)
        return self._stored(cluster_tag)

    def set_policy(
        self, cluster_tag: str, policy: RemediationPolicy, actor: Actor, *, dry_run: bool, token: str | None
    ) -> RemediationPolicyView:
        """The policy as stored (a dry run stores nothing and returns what would be). A policy that newly replaces
        nodes is stored only with the token of its plan; without one, the refusal carries the plan."""
        self._clusters.get(cluster_tag)
        current = self._stored(cluster_tag)
        if _rules(current) == policy:
            return current
        view = RemediationPolicyView(
            clusterTag=cluster_tag, updatedBy=actor.principal, updatedAt=self._clock.now(), **policy.model_dump()
        )
        if dry_run:
            return view
        if policy.action not in REPLACING or policy.recordOnly:
            self._store.save_policy(view)
            return view
        actions = [_replacing(cluster_tag, policy, current)]
        state = fingerprint([policy, _rules(current), *actions])
        if not token:
            issued, expires_at = self._confirmations.issue(actor, REPLACING_POLICY_ACTION, cluster_tag, state)
            raise confirmation_asked(
                Plan(
                    actions=actions,
                    confirmationToken=issued,
                    expiresAt=expires_at,
                    message=f"This policy replaces unhealthy nodes of '{cluster_tag}' that HyperPod does not repair, "
                    "destroying their volumes, without asking anyone at the time. Ask the person to confirm, then "
                    "repeat the request with confirmationToken.",
                )
            )
        how = f"Send the same PUT /clusters/{cluster_tag}/remediation-policy without a token"
        with self._confirmations.redeeming(token, actor, REPLACING_POLICY_ACTION, cluster_tag, how, state):
            self._store.save_policy(view)
        return view

    def _stored(self, cluster_tag: str) -> RemediationPolicyView:
        return self._store.policy(cluster_tag) or RemediationPolicyView(clusterTag=cluster_tag)


def _rules(view: RemediationPolicyView) -> RemediationPolicy:
    """The policy's rules, without who set them and when."""
    return RemediationPolicy.model_validate(view.model_dump(include=set(RemediationPolicy.model_fields)))


def _replacing(cluster_tag: str, policy: RemediationPolicy, current: RemediationPolicyView) -> PlannedAction:
    was = current.action + (" (record only)" if current.recordOnly else "")
    how = "replaced with new hardware" if policy.action == "replace" else "deep health checked, replaced if it fails,"
    return PlannedAction(
        action="update",
        resource="Remediation policy",
        name=cluster_tag,
        detail=f"{policy.action}: an unhealthy node HyperPod does not repair is {how} and its root and secondary EBS "
        f"volumes are destroyed; at most {policy.maxActionsPerHour} per hour on the cluster and "
        f"{policy.maxActionsPerGroupPerHour} per instance group (was {was})",
    )
