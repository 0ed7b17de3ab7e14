"""One reconcile of a cluster: the recorded state against live state, the stuck operations, the stored report.

The live reads are one DescribeCluster per cluster plus one read per recorded add-on, role, policy, object and tag
set, run together (`core.concurrency`); no node is listed.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import partial

from controlplane.core.concurrency import each, together
from controlplane.core.dependencies.addons import installed_for_pin
from controlplane.core.drift.compare import Check, findings, group_findings
from controlplane.core.drift.recorded import RecordedState, recorded_state
from controlplane.core.drift.stuck import stuck
from controlplane.core.features.catalog import CATALOG
from controlplane.core.features.catalog.tiered_storage import ROLE_ARN_ANNOTATION
from controlplane.core.naming import (
    TIERED_STORAGE_NAMESPACE,
    TIERED_STORAGE_SERVICE_ACCOUNT,
    Deployment,
    hyperpod_cluster_of,
    ownership_tags,
    tiered_storage_policy_name,
    tiered_storage_role_name,
)
from controlplane.core.paging import Page
from controlplane.core.ports.eks import EksCluster, EksGateway
from controlplane.core.ports.hyperpod import HyperPodCluster, HyperPodGateway
from controlplane.core.ports.iam import IamGateway
from controlplane.core.ports.kubernetes import KubernetesGateway
from controlplane.core.ports.persistence import Clock, ClusterRegistry, DriftReportStore, OperationRepository
from controlplane.models.clusters import ClusterRecord, StageName
from controlplane.models.drift import DriftReport, DriftValue
from controlplane.models.errors import ClusterNotFoundError, DomainError, NotFoundError
from controlplane.models.features import Feature
from controlplane.models.operations import Operation

# Operations read per page while replaying a cluster's history.
OPERATIONS_PAGE = 100
FEATURE_REMEDY = "Enable the feature again (PATCH …/features) to rebuild its chain, or disable it"
ADDON_REMEDY = "Run the dependencies stage again (POST …/dependencies) to restore the pinned version"
TAG_REMEDY = "Put the tag back: the control plane only touches what carries its ownership tags"
STORAGE_REMEDY = "Configure storage again (POST …/storage) to recreate the claim"


class DriftService:
    """Reconciles clusters; `eks` and `hyperpod` build the gateway of a Region."""

    def __init__(
        self,
        registry: ClusterRegistry,
        operations: OperationRepository,
        reports: DriftReportStore,
        eks: Callable[[str], EksGateway],
        hyperpod: Callable[[str], HyperPodGateway],
        iam: IamGateway,
        kubernetes: KubernetesGateway,
        addon_pins: Mapping[str, str],
        dependency_addons: Mapping[str, str],
        clock: Clock,
        deployment: Deployment,
    ) -> None:
        self._registry = registry
        self._operations = operations
        self._reports = reports
        self._eks = eks
        self._hyperpod = hyperpod
        self._iam = iam
        self._kubernetes = kubernetes
        self._addon_pins = addon_pins
        self._dependency_addons = dependency_addons
        self._clock = clock
        self._deployment = deployment

    def last(self, cluster_tag: str) -> DriftReport:
        """The stored report of the last reconcile."""
        self._record(cluster_tag)
        report = self._reports.find(cluster_tag)
        if report is None:
            raise NotFoundError(
                f"No drift check has run for cluster '{cluster_tag}' yet: run one with POST /clusters/{cluster_tag}"
                "/drift (tool cluster_drift_check)."
            )
        return report

    def check(self, cluster_tag: str) -> DriftReport:
        """Reconcile one cluster now and store the report."""
        record = self._record(cluster_tag)
        history = self._history(cluster_tag)
        now = self._clock.now()
        state = recorded_state(history)
        eks_gateway = self._eks(record.region)
        eks, hyperpod = together(
            lambda: eks_gateway.find_cluster(record.eksClusterName), lambda: self._hyperpod_cluster(record)
        )
        checks = self._checks(record, state, eks_gateway, eks, hyperpod)
        found = group_findings(state.groups, hyperpod, state.autoscaled_groups)
        found += findings(checks, each(lambda check: check.read(), checks))
        stuck_operations = [flagged for operation in history if (flagged := stuck(operation, now)) is not None]
        report = DriftReport(
            clusterTag=cluster_tag,
            checkedAt=now,
            inSync=not found and not stuck_operations,
            findings=found,
            stuckOperations=stuck_operations,
        )
        self._reports.put(report)
        return report

    def check_all(self) -> tuple[list[DriftReport], dict[str, str]]:
        """Reconcile every registered cluster (the schedule's run), one after the other: the reports, and the error of
        each cluster whose check failed (the others still run)."""
        reports: list[DriftReport] = []
        failed: dict[str, str] = {}
        for record in self._registry.list():
            try:
                reports.append(self.check(record.clusterTag))
            except DomainError as error:
                failed[record.clusterTag] = str(error)
        return reports, failed

    def _record(self, cluster_tag: str) -> ClusterRecord:
        record = self._registry.find(cluster_tag)
        if record is None:
            raise ClusterNotFoundError(f"No cluster '{cluster_tag}' is registered; list them with GET /clusters.")
        return record

    def _history(self, cluster_tag: str) -> list[Operation]:
        history: list[Operation] = []
        token: str | None = None
        while True:
            page: Page[Operation] = self._operations.list_for_cluster(cluster_tag, OPERATIONS_PAGE, token)
            history.extend(page.items)
            token = page.next_token
            if token is None:
                return history

    def _hyperpod_cluster(self, record: ClusterRecord) -> HyperPodCluster | None:
        if StageName.HYPERPOD.value not in record.stagesDone:
            return None
        return self._hyperpod(record.region).find_cluster(
            hyperpod_cluster_of(record.clusterTag, record.hyperPodClusterName)
        )

    def _checks(
        self,
        record: ClusterRecord,
        state: RecordedState,
        eks_gateway: EksGateway,
        eks: EksCluster | None,
        hyperpod: HyperPodCluster | None,
    ) -> list[Check]:
        checks: list[Check] = []
        if eks is None:
            return checks
        if not record.imported:
            checks += _tag_checks("tags.eksCluster", ownership_tags(self._deployment, record.clusterTag), eks.tags)
            if hyperpod is not None:
                owned = ownership_tags(self._deployment, record.clusterTag)
                checks += _tag_checks("tags.hyperPodCluster", owned, hyperpod.tags)
        pins = self._addon_pins
        if state.dependencies_installed:
            for addon in sorted(self._dependency_addons):
                checks.append(_addon_check(f"addons[{addon}]", eks_gateway, eks, addon, pins, ADDON_REMEDY))
        for feature in state.enabled_features():
            checks += self._feature_checks(record, feature, eks_gateway, eks, hyperpod)
        if record.storageClaim is not None:
            namespace, claim = record.storageClaim.split("/", 1)
            checks.append(
                Check(
                    f"storage.claims[{record.storageClaim}]",
                    "present",
                    lambda: _present(
                        self._kubernetes.get(eks, record.region, "v1", "PersistentVolumeClaim", claim, namespace)
                    ),
                    STORAGE_REMEDY,
                )
            )
        return checks

    def _feature_checks(
        self,
        record: ClusterRecord,
        feature: Feature,
        eks_gateway: EksGateway,
        eks: EksCluster,
        hyperpod: HyperPodCluster | None,
    ) -> list[Check]:
        path = f"features.{feature.value}"
        checks: list[Check] = []
        spec = CATALOG[feature]
        if spec.addon is not None:
            addon = spec.addon.name
            checks.append(
                _addon_check(f"{path}.addon[{addon}]", eks_gateway, eks, addon, self._addon_pins, FEATURE_REMEDY)
            )
        if spec.role is not None:
            role = spec.role(self._deployment, record.clusterTag)
            checks.append(Check(f"{path}.role", role, lambda: self._role(role), FEATURE_REMEDY))
        if feature == Feature.TIERED_STORAGE:
            checks += self._tiered_storage_checks(record, path, eks, hyperpod)
        return checks

    def _tiered_storage_checks(
        self, record: ClusterRecord, path: str, eks: EksCluster, hyperpod: HyperPodCluster | None
    ) -> list[Check]:
        policy = tiered_storage_policy_name(self._deployment, record.clusterTag)
        policy_arn = self._deployment.policy_arn(record.accountId or "", policy)
        role_arn = (
            f"arn:{self._deployment.partition}:iam::{record.accountId}:role/"
            f"{tiered_storage_role_name(self._deployment, record.clusterTag)}"
        )
        account = f"{TIERED_STORAGE_NAMESPACE}/{TIERED_STORAGE_SERVICE_ACCOUNT}"
        settings = (hyperpod.settings.get("TieredStorageConfig") if hyperpod else None) or {}
        return [
            Check(
                f"{path}.policy",
                policy,
                lambda: policy if self._iam.find_policy(policy_arn) is not None else None,
                FEATURE_REMEDY,
            ),
            Check(
                f"{path}.serviceAccount[{account}].annotations[{ROLE_ARN_ANNOTATION}]",
                role_arn,
                lambda: self._annotation(record, eks, ROLE_ARN_ANNOTATION),
                FEATURE_REMEDY,
            ),
            Check(f"{path}.hyperPodConfig.mode", "Enable", lambda: settings.get("Mode"), FEATURE_REMEDY),
        ]

    def _role(self, name: str) -> str | None:
        return name if self._iam.find_role(name) is not None else None

    def _annotation(self, record: ClusterRecord, eks: EksCluster, key: str) -> str | None:
        account = self._kubernetes.get(
            eks, record.region, "v1", "ServiceAccount", TIERED_STORAGE_SERVICE_ACCOUNT, TIERED_STORAGE_NAMESPACE
        )
        value = ((account or {}).get("metadata", {}).get("annotations") or {}).get(key)
        return str(value) if value is not None else None


def _tag_checks(path: str, wanted: dict[str, str], live: dict[str, str]) -> list[Check]:
    return [Check(f"{path}[{key}]", value, partial(live.get, key), TAG_REMEDY) for key, value in sorted(wanted.items())]


def _addon_check(
    path: str, eks_gateway: EksGateway, eks: EksCluster, addon: str, pins: Mapping[str, str], remedy: str
) -> Check:
    """The add-on's version against its pin (the add-on missing reads as no version). On a Kubernetes version EKS
    no longer offers the pin for, the stages install the lowest newer version: that one reads as the pin."""
    pin = pins.get(addon)

    def live() -> DriftValue:
        found = eks_gateway.find_addon(eks.name, addon)
        if found is None or found.version is None or pin is None:
            return found.version if found is not None else None
        return pin if installed_for_pin(eks_gateway, addon, pin, eks.version, found.version) else found.version

    return Check(f"{path}.version", pin, live, remedy)


def _present(obj: object) -> str | None:
    return "present" if obj is not None else None
