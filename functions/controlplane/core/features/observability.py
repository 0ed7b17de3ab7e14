"""HyperPod observability: an Amazon Managed Service for Prometheus workspace, then the EKS add-on configured to write
to it (`ampWorkspace`: its ARN and endpoint), with a pod identity role (Prometheus remote write, CloudWatch agent)
for its collector's ServiceAccount, once the pod identity agent and the HyperPod cluster are there.

Grafana is the user's to bring: the control plane creates no Grafana workspace (Amazon Managed Grafana signs people
in through IAM Identity Center or SAML, an account-level choice it does not make). The feature's state gives the
workspace's endpoint, which any Grafana takes as a Prometheus data source with SigV4 (service `aps`).

Enabling creates the workspace and waits until it is ACTIVE before the add-on; disabling removes the add-on, then
its role and the workspace (both only when their tags say they are this cluster's).
"""

from __future__ import annotations

from typing import Any

from controlplane.config import FeaturePins
from controlplane.core.features.addon import AddonFeature, AddonRole, require_pod_identity_agent
from controlplane.core.features.facts import HALF_BUILT, ClusterFacts
from controlplane.core.identity import OBSERVABILITY_POLICIES
from controlplane.core.naming import feature_tags, is_owned, observability_role_name, observability_workspace_alias
from controlplane.core.ports.eks import EksGateway
from controlplane.core.ports.iam import IamGateway
from controlplane.core.ports.prometheus import PrometheusGateway, PrometheusWorkspace
from controlplane.models.errors import DependencyFailedError
from controlplane.models.features import Feature, FeatureChange, FeatureState

OBSERVABILITY_ADDON = "amazon-sagemaker-hyperpod-observability"
OBSERVABILITY_SERVICE_ACCOUNT = "hyperpod-observability-operator-otel-collector"
WORKSPACE_ACTIVE = "ACTIVE"
WORKSPACE_FAILED = "CREATION_FAILED"
WORKSPACE_DELETING = "DELETING"


def bring_your_own_grafana(region: str, endpoint: str | None) -> str:
    """What the person adds themselves: the sentence the feature, the overview and the docs show."""
    where = f"at {endpoint}" if endpoint else "at the workspace's endpoint once it exists"
    return (
        "Metrics go to this cluster's Amazon Managed Service for Prometheus workspace; Grafana is yours to bring: "
        f"add a Prometheus data source {where} with SigV4 authentication (service aps, Region {region}) in Amazon "
        "Managed Grafana or your own Grafana. The control plane creates no Grafana workspace."
    )


class ObservabilityFeature:
    def __init__(
        self, iam: IamGateway, eks: EksGateway, prometheus: PrometheusGateway, pins: FeaturePins, boundary_arn: str
    ) -> None:
        self._eks = eks
        self._prometheus = prometheus
        role = AddonRole(
            iam,
            observability_role_name,
            OBSERVABILITY_POLICIES,
            boundary_arn=boundary_arn,
            pod_identity=OBSERVABILITY_SERVICE_ACCOUNT,
        )
        self._addon = AddonFeature(
            eks, Feature.OBSERVABILITY, OBSERVABILITY_ADDON, pins, role=role, configure=self._configuration
        )

    def probe(self, facts: ClusterFacts) -> FeatureState:
        state = self._addon.probe(facts)
        workspace = self._workspace(facts)
        resources = [*state.resources, *([f"Prometheus workspace {workspace.workspace_id}"] if workspace else [])]
        enabled = state.enabled and workspace is not None and workspace.status == WORKSPACE_ACTIVE
        half = not enabled and (state.state != "disabled" or workspace is not None)
        endpoint = workspace.endpoint if workspace is not None else None
        return state.model_copy(
            update={
                "enabled": enabled,
                "state": "enabled" if enabled else "partial" if half else "disabled",
                "resources": resources,
                "settings": {
                    **state.settings,
                    "prometheusWorkspace": workspace.workspace_id if workspace else None,
                    "prometheusEndpoint": endpoint,
                    "grafana": "bring your own",
                },
                "message": state.message or (HALF_BUILT if half else bring_your_own_grafana(facts.region, endpoint)),
            }
        )

    def ensure(self, facts: ClusterFacts, change: FeatureChange, first_attempt: bool) -> bool:
        """The workspace first, ACTIVE, then the add-on configured with it."""
        require_pod_identity_agent(self._eks, facts)
        workspace = self._workspace(facts)
        if workspace is None:
            alias = observability_workspace_alias(facts.deployment, facts.cluster_tag)
            tags = feature_tags(facts.deployment, facts.cluster_tag, Feature.OBSERVABILITY)
            workspace = self._prometheus.create_workspace(alias, tags)
        if workspace.status == WORKSPACE_FAILED:
            self._prometheus.delete_workspace(workspace.workspace_id)
            if first_attempt:
                return False  # a failed creation from an earlier run: replaced once it is gone
            raise DependencyFailedError(
                f"Prometheus workspace {workspace.workspace_id} failed to create; resume the operation to try again, "
                "or disable the feature."
            )
        if workspace.status != WORKSPACE_ACTIVE:
            return False
        return self._addon.ensure(facts, change, first_attempt)

    def remove(self, facts: ClusterFacts) -> bool:
        """The add-on (and its role) first: the collector writes to the workspace until it is gone."""
        if not self._addon.remove(facts):
            return False
        workspace = self._workspace(facts)
        if workspace is None:
            return True
        if workspace.status != WORKSPACE_DELETING:
            self._prometheus.delete_workspace(workspace.workspace_id)
        return False

    def _workspace(self, facts: ClusterFacts) -> PrometheusWorkspace | None:
        """This cluster's workspace: its alias and the feature's ownership tags (another's of that alias is not)."""
        alias = observability_workspace_alias(facts.deployment, facts.cluster_tag)
        owned = [w for w in self._prometheus.workspaces(alias) if is_owned(facts.deployment, w.tags, facts.cluster_tag)]
        return owned[0] if owned else None

    def _configuration(self, facts: ClusterFacts, role_arn: str | None, bucket: str | None) -> dict[str, Any]:
        """configurationValues of the add-on: the workspace it writes to (the role goes by pod identity)."""
        workspace = self._workspace(facts)
        if workspace is None or workspace.endpoint is None:
            raise DependencyFailedError("The Prometheus workspace disappeared before the add-on was created.")
        return {"ampWorkspace": {"prometheusEndpoint": workspace.endpoint.rstrip("/"), "arn": workspace.arn}}
