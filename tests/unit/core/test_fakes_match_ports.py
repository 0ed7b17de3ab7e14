"""The fakes the core's unit tests use offer every method of their port, with the same parameters."""

import inspect

import pytest

from controlplane.core.ports.account import AccountGateway
from controlplane.core.ports.eks import EksGateway
from controlplane.core.ports.events import EventForwarding
from controlplane.core.ports.iam import IamGateway
from controlplane.core.ports.kubernetes import (
    ClusterReadGateway,
    KubernetesGateway,
    ManifestRenderer,
    WorkloadGateway,
)
from controlplane.core.ports.logstream import ConnectionNotifier, ConnectionRepository, LogSource, PusherLauncher
from controlplane.core.ports.mlflow import MlflowGateway
from controlplane.core.ports.model_endpoints import ModelEndpointGateway
from controlplane.core.ports.network import NetworkGateway
from controlplane.core.ports.persistence import (
    AuditLog,
    Clock,
    ClusterRegistry,
    ConfirmationStore,
    DriftReportStore,
    OperationRepository,
    RecipeValuesStore,
    WorkflowLauncher,
)
from controlplane.core.ports.pricing import PriceGateway
from controlplane.core.ports.prometheus import PrometheusGateway
from controlplane.core.ports.quotas import QuotaGateway
from controlplane.core.ports.serving import ServingGateway
from controlplane.core.ports.storage import BucketGateway, FileSystemGateway
from controlplane.core.ports.training_plans import TrainingPlanMarket
from tests.fakes.account import InMemoryAccountGateway
from tests.fakes.eks import InMemoryEksGateway
from tests.fakes.events import InMemoryEventForwarding
from tests.fakes.iam import InMemoryIamGateway
from tests.fakes.kubernetes import FixedManifests, InMemoryKubernetesGateway
from tests.fakes.logstream import (
    InMemoryConnectionRepository,
    RecordingNotifier,
    RecordingPusherLauncher,
    ScriptedLogSource,
)
from tests.fakes.mlflow import InMemoryMlflowGateway
from tests.fakes.model_endpoints import InMemoryModelEndpointGateway
from tests.fakes.monitoring import InMemoryClusterReads
from tests.fakes.network import InMemoryNetworkGateway
from tests.fakes.persistence import (
    FakeClock,
    InMemoryAuditLog,
    InMemoryClusterRegistry,
    InMemoryConfirmationStore,
    InMemoryDriftReportStore,
    InMemoryOperationRepository,
    InMemoryRecipeValuesStore,
    RecordingLauncher,
)
from tests.fakes.pricing import InMemoryPriceGateway
from tests.fakes.prometheus import InMemoryPrometheusGateway
from tests.fakes.quotas import InMemoryQuotaGateway
from tests.fakes.serving import InMemoryServingGateway
from tests.fakes.storage import InMemoryBucketGateway, InMemoryFileSystemGateway
from tests.fakes.training_plans import InMemoryTrainingPlanMarket
from tests.fakes.workloads import InMemoryWorkloadGateway

PAIRS = [
    (AccountGateway, InMemoryAccountGateway),
    (EksGateway, InMemoryEksGateway),
    (EventForwarding, InMemoryEventForwarding),
    (IamGateway, InMemoryIamGateway),
    (KubernetesGateway, InMemoryKubernetesGateway),
    (ManifestRenderer, FixedManifests),
    (WorkloadGateway, InMemoryWorkloadGateway),
    (ClusterReadGateway, InMemoryClusterReads),
    (ModelEndpointGateway, InMemoryModelEndpointGateway),
    (NetworkGateway, InMemoryNetworkGateway),
    (MlflowGateway, InMemoryMlflowGateway),
    (OperationRepository, InMemoryOperationRepository),
    (ClusterRegistry, InMemoryClusterRegistry),
    (DriftReportStore, InMemoryDriftReportStore),
    (PriceGateway, InMemoryPriceGateway),
    (PrometheusGateway, InMemoryPrometheusGateway),
    (AuditLog, InMemoryAuditLog),
    (ConfirmationStore, InMemoryConfirmationStore),
    (RecipeValuesStore, InMemoryRecipeValuesStore),
    (WorkflowLauncher, RecordingLauncher),
    (Clock, FakeClock),
    (BucketGateway, InMemoryBucketGateway),
    (FileSystemGateway, InMemoryFileSystemGateway),
    (QuotaGateway, InMemoryQuotaGateway),
    (ServingGateway, InMemoryServingGateway),
    (ConnectionRepository, InMemoryConnectionRepository),
    (ConnectionNotifier, RecordingNotifier),
    (PusherLauncher, RecordingPusherLauncher),
    (LogSource, ScriptedLogSource),
    (TrainingPlanMarket, InMemoryTrainingPlanMarket),
]


def methods(cls: type) -> dict[str, list[str]]:
    return {
        name: list(inspect.signature(member).parameters)
        for name, member in vars(cls).items()
        if callable(member) and (not name.startswith("_") or name == "__call__")
    }


@pytest.mark.parametrize(("port", "fake"), PAIRS, ids=[fake.__name__ for _, fake in PAIRS])
def test_the_fake_implements_every_method_of_its_port(port, fake):
    offered = {name: list(inspect.signature(getattr(fake, name)).parameters) for name in methods(port)}
    assert offered == methods(port)
