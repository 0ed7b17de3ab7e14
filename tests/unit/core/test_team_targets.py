"""TeamTargets against in-memory fakes: a team's workload goes to hyperpod-ns-<team> with its Kueue labels only when
task governance is enabled, the team has a quota, the priority is a class of the scheduler policy and the team's
namespace is ready; each refusal says what to change."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from controlplane.core.team_targets import (
    PriorityClassNotFoundError,
    TeamNamespaceNotReadyError,
    TeamNotFoundError,
    TeamTarget,
    TeamTargets,
    workload_namespace,
)
from controlplane.models.clusters import ClusterRecord
from controlplane.models.errors import FeatureNotEnabledError
from tests.fakes.eks import InMemoryEksGateway
from tests.fakes.governance import InMemoryGovernanceGateway
from tests.fakes.hyperpod import InMemoryHyperPodGateway

EKS_NAME = "eks-cluster-demo"
GOVERNANCE_ADDON = "amazon-sagemaker-hyperpod-taskgovernance"


class Team:
    def __init__(self, record: ClusterRecord) -> None:
        self.record = record
        self.eks = InMemoryEksGateway()
        self.cluster = self.eks.add_cluster(EKS_NAME)
        self.eks.add_addon(EKS_NAME, GOVERNANCE_ADDON)
        self.hyperpod = InMemoryHyperPodGateway()
        self.arn = self.hyperpod.put_cluster("hp-cluster-demo").arn
        self.governance = InMemoryGovernanceGateway()
        self.governance.put_team(self.arn, "ml-a")
        self.governance.put_priorities(self.arn, "low", "high")
        self.unready: set[str] = set()
        self.targets = TeamTargets(
            lambda _: self.eks, lambda _: self.hyperpod, lambda _: self.governance, self.namespace_ready
        )

    def namespace_ready(self, record: ClusterRecord, team: str) -> None:
        """Stands for governance's readiness check (tests/unit/core/governance/test_namespace.py tests its rules)."""
        if team in self.unready:
            raise TeamNamespaceNotReadyError(f"Team '{team}''s namespace is not ready in '{record.clusterTag}'.")

    def target(self, team: str = "ml-a", priority: str | None = "high") -> TeamTarget:
        return self.targets(self.record, self.cluster, team, priority)


@pytest.fixture
def team(make_record: Callable[..., ClusterRecord]) -> Team:
    return Team(make_record("eks", "hyperpod", "storage", storageClaim="ml/s3-claim"))


def test_a_team_with_a_priority_targets_its_namespace_with_both_kueue_labels(team):
    assert team.target() == TeamTarget(
        "hyperpod-ns-ml-a",
        {"kueue.x-k8s.io/queue-name": "hyperpod-ns-ml-a-localqueue", "kueue.x-k8s.io/priority-class": "high-priority"},
    )


def test_a_team_without_a_priority_carries_only_its_queue_label(team):
    assert team.target(priority=None).labels == {"kueue.x-k8s.io/queue-name": "hyperpod-ns-ml-a-localqueue"}


def test_a_team_is_refused_while_task_governance_is_off(team):
    del team.eks.addons[(EKS_NAME, GOVERNANCE_ADDON)]
    with pytest.raises(FeatureNotEnabledError, match=r'not installed\). Enable it with PATCH .*"taskGovernance"') as e:
        team.target()
    assert e.value.status == 409


def test_an_unknown_team_is_refused_listing_the_teams(team):
    with pytest.raises(TeamNotFoundError, match=r"Team 'ml-z' has no compute quota on 'demo' \(teams: ml-a\)") as e:
        team.target("ml-z")
    assert (e.value.status, e.value.details) == (404, {"teams": ["ml-a"]})


def test_a_priority_outside_the_scheduler_policy_is_refused_naming_its_classes(team):
    with pytest.raises(PriorityClassNotFoundError, match=r"\(classes: low, high\); set `priority` to one") as e:
        team.target(priority="urgent")
    assert e.value.status == 400


def test_a_priority_without_a_scheduler_policy_says_how_to_define_one(team):
    team.governance.schedulers.clear()
    with pytest.raises(PriorityClassNotFoundError, match=r"none: PUT /clusters/demo/scheduler-policy defines them"):
        team.target()


def test_a_team_whose_namespace_is_not_ready_is_refused_after_the_other_checks(team):
    team.governance.put_team(team.arn, "ml-b")
    team.unready.add("ml-b")
    with pytest.raises(PriorityClassNotFoundError):
        team.target("ml-b", priority="urgent")
    with pytest.raises(TeamNamespaceNotReadyError, match=r"Team 'ml-b''s namespace is not ready in 'demo'") as e:
        team.target("ml-b")
    assert e.value.status == 409


def test_jobs_are_looked_for_in_the_claims_namespace_and_the_teams_only():
    assert [workload_namespace(ns, "ml") for ns in ("ml", "hyperpod-ns-a", "kube-system", None)] == [
        True,
        True,
        False,
        False,
    ]
