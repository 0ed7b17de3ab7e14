"""DynamoDB table layouts: the one description the CDK stack and the sandbox both build from."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Index:
    name: str
    partition_key: str
    sort_key: str | None = None


@dataclass(frozen=True)
class TableSpec:
    logical_name: str
    env_var: str
    partition_key: str
    sort_key: str | None = None
    indexes: tuple[Index, ...] = field(default_factory=tuple)
    ttl_attribute: str | None = None


TABLES = (
    TableSpec(
        "Operations", "IS_OPERATIONS_TABLE", "operationId", indexes=(Index("byCluster", "clusterTag", "createdAt"),)
    ),
    TableSpec("Clusters", "IS_CLUSTERS_TABLE", "clusterTag", indexes=(Index("byRegistry", "registry", "clusterTag"),)),
    TableSpec("Audit", "IS_AUDIT_TABLE", "target", sort_key="sortKey", indexes=(Index("byTime", "log", "sortKey"),)),
    TableSpec("Confirmations", "IS_CONFIRMATIONS_TABLE", "token", ttl_attribute="ttl"),
    TableSpec("Idempotency", "IS_IDEMPOTENCY_TABLE", "id", ttl_attribute="expiration"),
    TableSpec("RecipeValues", "IS_RECIPE_VALUES_TABLE", "principal", sort_key="recipe"),
    TableSpec(
        "Events", "IS_EVENTS_TABLE", "cluster", sort_key="sortKey", indexes=(Index("byNode", "nodeKey", "sortKey"),)
    ),
    TableSpec("EventWaits", "IS_EVENT_WAITS_TABLE", "waitKey", sort_key="taskToken", ttl_attribute="ttl"),
    TableSpec("Drift", "IS_DRIFT_TABLE", "clusterTag"),
    TableSpec(
        "Connections", "IS_CONNECTIONS_TABLE", "connectionId", indexes=(Index("byTopic", "topic"),), ttl_attribute="ttl"
    ),
)
