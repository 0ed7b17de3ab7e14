"""The one builder of workflow inputs: the cluster's facts from its registry record, plus the kind's own part.

Every workflow start goes through here (via `OperationService.start`), so a fact every step may need (the
cluster's incarnation, the HyperPod cluster's name, whether the cluster was imported, its adopted network) cannot be
forgotten by one caller. The kind's model refuses a missing part and an unknown one.
"""

from __future__ import annotations

from typing import Any

from controlplane.core.naming import hyperpod_cluster_of
from controlplane.models.clusters import ClusterRecord
from controlplane.models.operations import OperationKind
from controlplane.models.workflow import WorkflowInput, parse_input


def workflow_input(
    kind: OperationKind, operation_id: str, record: ClusterRecord, account_id: str, **own: Any
) -> WorkflowInput:
    """The execution input of `kind` for the cluster of `record` in account `account_id` (the record's, for
    records that have it); `own` are the kind's own fields (its plans)."""
    return parse_input(
        {
            "kind": kind,
            "operationId": operation_id,
            "clusterTag": record.clusterTag,
            "incarnation": record.incarnation,
            "region": record.region,
            "accountId": account_id,
            "eksClusterName": record.eksClusterName,
            "hyperPodClusterName": hyperpod_cluster_of(record.clusterTag, record.hyperPodClusterName),
            "imported": record.imported,
            "importedNetwork": record.network,
            **own,
        }
    )
