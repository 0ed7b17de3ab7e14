"""The log a topic follows, read as `GET …/jobs/{jobName}/logs` reads it (the training jobs' service)."""

from __future__ import annotations

from controlplane.core.training.service import TrainingJobService
from controlplane.models.logstream import LogTopic
from controlplane.models.training import JobLogs


class JobLogSource:
    def __init__(self, jobs: TrainingJobService) -> None:
        self._jobs = jobs

    def read(self, topic: LogTopic) -> JobLogs:
        return self._jobs.logs(topic.clusterTag, topic.jobName, topic.pod)
