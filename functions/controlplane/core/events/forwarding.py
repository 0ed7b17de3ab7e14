"""HyperPod's events from every Region a cluster lives in: the deployment's rules exist only in its own Region, and
HyperPod sends a cluster's events to the default bus of the cluster's Region. So the first cluster created or
imported in another Region gets, in that Region, one rule (the home rules' patterns) whose target is the home
Region's default bus; deleting the last cluster there removes it.

The rule is the deployment's (named for it and its Region, tagged with its ownership tags), shared by the Region's
clusters; a rule of that name with other tags is someone else's and is left alone. EventBridge delivers to the home
bus as the stack's forwarding role, which may only put events on that bus.
"""

from __future__ import annotations

from collections.abc import Callable

from controlplane.core.naming import Deployment, event_forwarding_rule_name, is_deployment_owned, owner
from controlplane.core.ports.events import EventForwarding
from controlplane.core.ports.persistence import ClusterRegistry
from controlplane.models.clusters import ClusterStatus
from controlplane.models.errors import ForeignResourceError
from controlplane.models.workflow import WorkflowState


class EventForwardingSteps:
    def __init__(
        self,
        forwarding: Callable[[str], EventForwarding],
        registry: ClusterRegistry,
        deployment: Deployment,
        role_arn: str,
    ) -> None:
        self._forwarding = forwarding
        self._registry = registry
        self._deployment = deployment
        self._role_arn = role_arn

    def ensure_event_forwarding(self, ctx: WorkflowState) -> dict[str, str]:
        """The cluster's Region forwards HyperPod's events to the home bus (nothing to do in the home Region)."""
        if ctx.region == self._deployment.region:
            return {"forwarding": f"none needed: {ctx.region} is the deployment's Region"}
        name = event_forwarding_rule_name(self._deployment)
        bus = self._home_bus(ctx.accountId)
        gateway = self._forwarding(ctx.region)
        found = gateway.find(name)
        if found is not None and not is_deployment_owned(self._deployment, found.tags):
            raise ForeignResourceError(
                f"EventBridge rule {name} in {ctx.region} exists but is not this deployment's. {owner(found.tags)}"
            )
        if found is None or found.targets != (bus,):
            gateway.put(name, bus, self._role_arn, self._deployment.owner_tags())
        return {"forwarding": f"{ctx.region} rule {name} to {bus}"}

    def remove_event_forwarding(self, ctx: WorkflowState) -> dict[str, str]:
        """After the Region's last cluster, its rule goes (clusters being deleted do not count: they wait for no
        event)."""
        if ctx.region == self._deployment.region:
            return {"forwarding": f"none: {ctx.region} is the deployment's Region"}
        others = [
            record.clusterTag
            for record in self._registry.list()
            if record.region == ctx.region
            and record.clusterTag != ctx.clusterTag
            and record.status != ClusterStatus.DELETING
        ]
        name = event_forwarding_rule_name(self._deployment)
        if others:
            return {"forwarding": f"kept: {len(others)} other cluster(s) in {ctx.region} ({', '.join(others)})"}
        gateway = self._forwarding(ctx.region)
        found = gateway.find(name)
        if found is None:
            return {"forwarding": "already gone"}
        if not is_deployment_owned(self._deployment, found.tags):
            return {"forwarding": f"kept: {name} is not this deployment's"}
        gateway.delete(name)
        return {"forwarding": f"removed {ctx.region} rule {name}"}

    def _home_bus(self, account: str) -> str:
        home = self._deployment
        return f"arn:{home.partition}:events:{home.region}:{account}:event-bus/default"
