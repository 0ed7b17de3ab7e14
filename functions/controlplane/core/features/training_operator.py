"""The HyperPod training operator: the EKS add-on, once the operator's pod identity (made by the HyperPod stage)
and the pod identity agent (made by the dependencies stage) are there, and beside it the jobs' own AWS identity
(`job_identity`: role, ServiceAccount, association). cert-manager is a dependency rule."""

from __future__ import annotations

from functools import partial

from controlplane.config import FeaturePins
from controlplane.core.features.addon import AddonFeature, require_pod_identity_agent
from controlplane.core.features.facts import HALF_BUILT, ClusterFacts
from controlplane.core.features.job_identity import JobIdentity
from controlplane.core.hyperpod_roles import TRAINING_OPERATOR_NAMESPACE, TRAINING_OPERATOR_SERVICE_ACCOUNT
from controlplane.core.naming import JOB_SERVICE_ACCOUNT
from controlplane.core.ports.eks import EksGateway
from controlplane.models.errors import ClusterNotReadyError
from controlplane.models.features import Feature, FeatureChange, FeatureState, LiveState

TRAINING_OPERATOR_ADDON = "amazon-sagemaker-hyperpod-training-operator"


class TrainingOperator:
    """The operator's add-on and the jobs' identity: enabled when both are in place. The identity is built once the
    add-on's precondition holds and removed once the add-on is gone."""

    def __init__(self, eks: EksGateway, pins: FeaturePins, jobs: JobIdentity) -> None:
        self._addon = AddonFeature(
            eks,
            Feature.TRAINING_OPERATOR,
            TRAINING_OPERATOR_ADDON,
            pins,
            precondition=partial(_require_operator_identity, eks),
        )
        self._jobs = jobs

    def probe(self, facts: ClusterFacts) -> FeatureState:
        addon = self._addon.probe(facts)
        jobs = self._jobs.state(facts)
        resources = addon.resources + jobs.resources
        complete = addon.enabled and jobs.complete
        state: LiveState = "enabled" if complete else "partial" if resources else "disabled"
        half_built = state == "partial" and not jobs.complete
        return addon.model_copy(
            update={
                "enabled": complete,
                "state": state,
                "settings": {
                    **addon.settings,
                    "jobServiceAccount": f"{facts.job_namespace}/{JOB_SERVICE_ACCOUNT}",
                    "jobRoleArn": jobs.role.arn if jobs.role is not None else None,
                },
                "resources": resources,
                "message": addon.message or (HALF_BUILT if half_built else None),
            }
        )

    def ensure(self, facts: ClusterFacts, change: FeatureChange, first_attempt: bool) -> bool:
        done = self._addon.ensure(facts, change, first_attempt)
        self._jobs.ensure(facts)
        return done

    def remove(self, facts: ClusterFacts) -> bool:
        if not self._addon.remove(facts):
            return False
        self._jobs.remove(facts)
        return True


def _require_operator_identity(eks: EksGateway, facts: ClusterFacts) -> None:
    """The operator's pod identity (stage 4) and the pod identity agent (stage 3) must be there."""
    require_pod_identity_agent(eks, facts)
    role = eks.pod_identity_role(facts.eks_name, TRAINING_OPERATOR_NAMESPACE, TRAINING_OPERATOR_SERVICE_ACCOUNT)
    if role is None:
        raise ClusterNotReadyError(
            f"The training operator's pod identity association ({TRAINING_OPERATOR_NAMESPACE}/"
            f"{TRAINING_OPERATOR_SERVICE_ACCOUNT}) is missing; resume the HyperPod stage that creates it."
        )
