"""DynamoDB table layouts: the one description the CDK stack and the sandbox both build from.

Each names the field of `controlplane.settings.Settings` that carries the table's name to the functions.
"""

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
    setting: str
    partition_key: str
    sort_key: str | None = None
    indexes: tuple[Index, ...] = field(default_factory=tuple)
    ttl_attribute: str | None = None


TABLES = (
    TableSpec(
        "Operations", "operations_table", "operationId", indexes=(Index("byCluster", "clusterTag", "createdAt"),)
    ),
    TableSpec("Clusters", "clusters_table", "clusterTag", indexes=(Index("byRegistry", "registry", "clusterTag"),)),
    TableSpec("Audit", "audit_table", "target", sort_key="sortKey", indexes=(Index("byTime", "log", "sortKey"),)),
    TableSpec("Confirmations", "confirmations_table", "token", ttl_attribute="ttl"),
    TableSpec("Idempotency", "idempotency_table", "id", ttl_attribute="expiration"),
    TableSpec("RecipeValues", "recipe_values_table", "principal", sort_key="recipe"),
    TableSpec(
        "Events", "events_table", "cluster", sort_key="sortKey", indexes=(Index("byNode", "nodeKey", "sortKey"),)
    ),
    TableSpec("EventWaits", "event_waits_table", "waitKey", sort_key="taskToken", ttl_attribute="ttl"),
    TableSpec("Drift", "drift_table", "clusterTag"),
    TableSpec(
        "Connections", "connections_table", "connectionId", indexes=(Index("byTopic", "topic"),), ttl_attribute="ttl"
    ),
)
