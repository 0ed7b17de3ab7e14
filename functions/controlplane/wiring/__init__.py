"""The composition root: the only place that constructs adapters and services, one module per context. Cached
per process.

Each factory is a `@provider` (`wiring.provider`): cached, and registered so that `reset()` forgets it. It imports
its adapters and services when it is first called, so an entry point loads only what its request or step uses
(cold start): keep those imports inside the factories. Factories reach one another through this package
(`wiring.clock()`), so that an object replaced here (the sandbox's clock, a test's fake) reaches every factory.
Constructors are called with keywords. A new factory is a `@provider` in its context's module, exported below.
"""

# The package is its modules' factories, re-exported: `wiring.eks_stack(region)`.
# ruff: noqa: F401

from controlplane.settings import settings
from controlplane.wiring.advanced_features import feature_reads, feature_steps, features
from controlplane.wiring.dependencies import cluster_dependencies_service, node_agents
from controlplane.wiring.governance import scheduler_policy, team_namespace_steps, team_namespaces, team_targets, teams
from controlplane.wiring.hyperpod import (
    health_check_steps,
    health_checks,
    hyperpod_activity,
    hyperpod_stage,
    instance_group_steps,
    instance_groups,
    node_steps,
    nodes,
)
from controlplane.wiring.hyperpod_events import (
    event_forwarding_steps,
    event_wait_steps,
    events,
    remediation,
    remediation_policy,
)
from controlplane.wiring.lifecycle import (
    catalog,
    cluster_access,
    cluster_import,
    cluster_lifecycle,
    clusters,
    deletion_planner,
    hyperpod_planner,
    preflight,
    resumes,
    stage_requests,
    training_plans,
)
from controlplane.wiring.network import eks_stack
from controlplane.wiring.provider import reset
from controlplane.wiring.records import audit_log, audit_trail, operations, registry
from controlplane.wiring.reports import cost, drift, monitoring
from controlplane.wiring.serving import endpoints, model_pool, model_servers, workload_waits
from controlplane.wiring.shared import (
    SystemClock,
    clock,
    confirmations,
    control_plane_access,
    deployment,
    kubernetes_clients,
    kubernetes_job_writers,
    kubernetes_readers,
    poller,
)
from controlplane.wiring.spaces import spaces
from controlplane.wiring.storage import storage_service
from controlplane.wiring.training import download_steps, downloads, live_logs, mlflow, recipes, training_jobs
