"""Pod list pages decoded with msgspec into Structs holding only what monitoring reads (phase, node, the containers'
GPU asks, name, namespace and age); every other field of a pod (labels, managedFields, env, images...) is skipped by
the decoder, never built. Why a pod waits is kept undecoded (`msgspec.Raw`) and read only for the pods that wait.

`pod_counts_of` folds a page in one tight loop: the overview's hot path, once per pod of the cluster."""

from __future__ import annotations

from typing import Any

import msgspec

from controlplane.adapters.k8s.client import decode_page
from controlplane.core.ports.kubernetes import PodCounts, PodFacts
from controlplane.models.status import GPU_RESOURCE

PENDING = "Pending"
UNDECODED = msgspec.Raw()


class _Quantities(msgspec.Struct, gc=False):
    # Only the GPU quantity is decoded; cpu, memory and the other resources are skipped.
    gpus: Any = msgspec.field(default=None, name=GPU_RESOURCE)


class _Resources(msgspec.Struct, gc=False):
    requests: _Quantities | None = None
    limits: _Quantities | None = None


class _Container(msgspec.Struct, gc=False):
    resources: _Resources | None = None


class _Spec(msgspec.Struct, gc=False):
    nodeName: str | None = None
    containers: list[_Container] | None = None


class _Status(msgspec.Struct, gc=False):
    phase: str | None = None
    conditions: msgspec.Raw = UNDECODED
    initContainerStatuses: msgspec.Raw = UNDECODED
    containerStatuses: msgspec.Raw = UNDECODED


class _Metadata(msgspec.Struct, gc=False):
    name: str
    namespace: str | None = None
    creationTimestamp: str | None = None


class Pod(msgspec.Struct, gc=False):
    metadata: _Metadata
    spec: _Spec | None = None
    status: _Status | None = None


class _ListMetadata(msgspec.Struct, gc=False):
    # `continue` is a Python keyword.
    next: str | None = msgspec.field(default=None, name="continue")


class PodList(msgspec.Struct, gc=False):
    items: list[Pod] | None = None
    metadata: _ListMetadata | None = None

    @property
    def continue_token(self) -> str | None:
        return (self.metadata and self.metadata.next) or None


# Why a pod waits, decoded for a waiting pod only.
class _Condition(msgspec.Struct, gc=False):
    type: str | None = None
    status: str | None = None
    reason: str | None = None
    message: str | None = None


class _Waiting(msgspec.Struct, gc=False):
    reason: str | None = None
    message: str | None = None


class _State(msgspec.Struct, gc=False):
    waiting: _Waiting | None = None


class _ContainerStatus(msgspec.Struct, gc=False):
    restartCount: int | None = None
    state: _State | None = None


_POD_LIST = msgspec.json.Decoder(PodList)
_CONDITIONS = msgspec.json.Decoder(list[_Condition] | None)
_STATUSES = msgspec.json.Decoder(list[_ContainerStatus] | None)


def pod_list(data: bytes) -> PodList:
    """A pod list response's body; a body that is not one raises ValueError (msgspec's DecodeError)."""
    return decode_page(data, _POD_LIST.decode)


def _asked(value: Any) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return 0


def _gpus(container: _Container) -> int:
    """The GPUs a container asks for: its request, else its limit (Kubernetes defaults one to the other)."""
    resources = container.resources
    if resources is None:
        return 0
    requests, limits = resources.requests, resources.limits
    return _asked((requests and requests.gpus) or (limits and limits.gpus) or 0)


def pod_counts_of(pods: list[Pod]) -> PodCounts:
    """A page of pods counted: by phase, GPUs asked per (node, phase); only a pending pod becomes a record. A
    container that asks for no GPU costs two attribute reads."""
    by_phase: dict[str, int] = {}
    gpus: dict[tuple[str, str], int] = {}
    pending = []
    for pod in pods:
        status = pod.status
        phase = (status and status.phase) or PENDING
        by_phase[phase] = by_phase.get(phase, 0) + 1
        spec = pod.spec
        if spec is not None and spec.nodeName and spec.containers:
            asked = 0
            for container in spec.containers:
                resources = container.resources
                if resources is not None and (
                    (resources.requests and resources.requests.gpus is not None)
                    or (resources.limits and resources.limits.gpus is not None)
                ):
                    asked += _gpus(container)
            if asked:
                key = (spec.nodeName, phase)
                gpus[key] = gpus.get(key, 0) + asked
        if phase == PENDING:
            pending.append(pod_facts(pod))
    return PodCounts(by_phase, gpus, pending)


def _decoded(decoder: msgspec.json.Decoder[Any], raw: msgspec.Raw) -> list[Any]:
    """A list kept undecoded: empty when absent or null."""
    return (decoder.decode(raw) if raw else None) or []


def _waiting(status: _Status) -> tuple[str | None, str | None]:
    """Why a pod is not running: the scheduler's condition, else the first waiting container's reason."""
    for condition in _decoded(_CONDITIONS, status.conditions):
        if condition.type == "PodScheduled" and condition.status == "False":
            return condition.reason or "Unschedulable", condition.message
    statuses = [*_decoded(_STATUSES, status.initContainerStatuses), *_decoded(_STATUSES, status.containerStatuses)]
    for container in statuses:
        waiting = container.state and container.state.waiting
        if waiting and waiting.reason:
            return waiting.reason, waiting.message
    return None, None


def pod_facts(pod: Pod) -> PodFacts:
    spec, status = pod.spec or _Spec(), pod.status or _Status()
    phase = status.phase or PENDING
    reason, message = _waiting(status) if phase != "Running" else (None, None)
    return PodFacts(
        namespace=pod.metadata.namespace or "",
        name=pod.metadata.name,
        node=spec.nodeName,
        phase=phase,
        gpus=sum(_gpus(container) for container in spec.containers or ()),
        restarts=sum(c.restartCount or 0 for c in _decoded(_STATUSES, status.containerStatuses)),
        created_at=pod.metadata.creationTimestamp,
        waiting_reason=reason,
        waiting_message=message,
    )
