"""Whether a model server fits the cluster's nodes: its instance type is one of theirs, and its GPUs per replica fit
one node (by the instance type's table, else what the node reports)."""

from __future__ import annotations

from controlplane.core.ports.kubernetes import KubernetesGateway
from controlplane.core.serving.target import ServingTarget
from controlplane.models.errors import InvalidRequestError
from controlplane.models.instance_types import instance_type
from controlplane.models.serving import DeployModelRequest
from controlplane.models.status import GPU_RESOURCE, INSTANCE_TYPE_LABEL


def check_placement(objects: KubernetesGateway, target: ServingTarget, request: DeployModelRequest) -> None:
    nodes = objects.nodes(target.cluster, target.region)
    if request.instanceType:
        chosen = [node for node in nodes if node.labels.get(INSTANCE_TYPE_LABEL) == request.instanceType]
        if not chosen:
            known = sorted({node.labels.get(INSTANCE_TYPE_LABEL, "") for node in nodes} - {""})
            raise InvalidRequestError(
                f"Cluster '{target.record.clusterTag}' has no nodes of instance type '{request.instanceType}'; "
                f"set instanceType to one it has ({', '.join(known) or 'none yet: add an instance group first'}).",
                {"instanceType": known},
            )
    else:
        chosen = nodes
    most = max((_gpus(node.labels, node.allocatable) for node in chosen), default=0)
    if request.gpus > most:
        where = f"a node of '{request.instanceType}'" if request.instanceType else "any node of the cluster"
        raise InvalidRequestError(
            f"`gpus` {request.gpus} is more than the {most} GPU(s) {where} has; ask for at most {most}, or place "
            "the server on a larger instance type.",
            {"gpus": most},
        )


def _gpus(labels: dict[str, str], allocatable: dict[str, str]) -> int:
    facts = instance_type(labels.get(INSTANCE_TYPE_LABEL, ""))
    return facts.gpus if facts else int(allocatable.get(GPU_RESOURCE, "0"))
