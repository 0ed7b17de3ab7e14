"""Live logs over the WebSocket API: what a client sends (`SubscribeMessage`, `UnsubscribeMessage`), the topic it
names, and the frames the control plane sends back (`LogFrame` and friends).

A topic is one job's log (the job's first pod, as `GET …/logs` reads it) or one named pod of the job.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from controlplane.models.common import ClusterTag, Contract, View
from controlplane.models.training import JobName

# The asynchronous invocation of the WebSocket function that runs a log pusher: {"action": "push", "topic", "owner"}.
PUSH_ACTION = "push"
# A pod name is a DNS subdomain (the job's pods are named from the job).
POD_NAME_PATTERN = r"^[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?$"


class LogTopic(Contract):
    """One job's log, or one pod of it: `<clusterTag>/<jobName>[/<pod>]` as the connections table keys it."""

    clusterTag: ClusterTag
    jobName: JobName
    pod: str | None = Field(default=None, pattern=POD_NAME_PATTERN)

    @property
    def key(self) -> str:
        return "/".join(part for part in (self.clusterTag, self.jobName, self.pod) if part)

    @classmethod
    def parse(cls, key: str) -> LogTopic:
        cluster_tag, job_name, *pod = key.split("/", 2)
        return cls(clusterTag=cluster_tag, jobName=job_name, pod=pod[0] if pod else None)


class SubscribeMessage(LogTopic):
    """`{"action": "subscribe", "clusterTag": "demo", "jobName": "llama", "pod": "llama-worker-0"}`: follow a log
    (a connection follows one topic; subscribing again moves it)."""

    action: Literal["subscribe"]


class UnsubscribeMessage(Contract):
    """`{"action": "unsubscribe"}`: stop following."""

    action: Literal["unsubscribe"]


class LogFrame(View):
    """New lines of a followed log. `start` is the index of the first line in the pod's log: a frame with `start`
    0 replaces what the client shows (a new pod, a restarted container); a client drops the lines it already has."""

    type: Literal["lines"] = "lines"
    topic: str
    pod: str
    pods: list[str]
    start: int
    lines: list[str]


class StatusFrame(View):
    """`subscribed` (what follows is the log's lines), `ended` (the job is gone: nothing more will come) or
    `error` (the subscription was refused: `code` and `message` say why and what to change)."""

    type: Literal["subscribed", "ended", "error"]
    topic: str | None = None
    code: str | None = None
    message: str | None = None
