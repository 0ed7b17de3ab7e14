"""Where a finished training job's model is (train → deploy): the S3 location of a Succeeded job's output, for every
way of serving it (`"modelSource": {"job": "<name>"}` on a self-managed model server and on a managed endpoint). The
job is found by its name alone, as the job routes find it: in the claim's namespace or a team's (`find_job`).

A job's output is the value of its output argument (`--output`, `--output_dir`, `--output-dir`, `--output_path`,
`--output-path`, as the recipes write them): an `s3://bucket/prefix` URI, or a directory under the S3 claim's mount
`/s3/…`, which is the same prefix of the cluster's data bucket. What a server then does with the location (mount
it, or hand it to the inference operator) is the serving side's business.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from controlplane.core.ports.eks import EksCluster
from controlplane.core.ports.kubernetes import WorkloadGateway
from controlplane.core.team_targets import workload_namespace
from controlplane.core.training import manifest as jobs
from controlplane.core.training.manifest import S3_MOUNT
from controlplane.models.clusters import ClusterRecord
from controlplane.models.errors import InvalidRequestError
from controlplane.models.training import JobPhase

OUTPUT_FLAGS = ("--output", "--output_dir", "--output-dir", "--output_path", "--output-path")
_S3_URI = re.compile(r"^s3://(?P<bucket>[a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:/(?P<prefix>.*))?$")

# A job's name → the job object, or None when there is no such job.
JobReader = Callable[[str], dict[str, Any] | None]


def find_job(reads: WorkloadGateway, cluster: EksCluster, region: str, home: str) -> JobReader:
    """Reads a training job by name in the claim's namespace `home` or a team's `hyperpod-ns-<team>` (job names are
    unique across them), with one list call across namespaces."""

    def read(name: str) -> dict[str, Any] | None:
        page = reads.list_objects(cluster, region, jobs.API_VERSION, jobs.KIND, None, 10, None, name=name)
        return next((job for job in page.items if workload_namespace(job["metadata"].get("namespace"), home)), None)

    return read


@dataclass(frozen=True)
class JobOutput:
    """A job's output in S3: `prefix` has no leading or trailing slash (empty for the bucket's root)."""

    bucket: str
    prefix: str

    @property
    def uri(self) -> str:
        return f"s3://{self.bucket}/{self.prefix}"


def job_output(record: ClusterRecord, name: str, read_job: JobReader) -> JobOutput:
    """The S3 location of training job `name`'s output; refused (400, saying what to give instead) when there is no
    such job, it has not Succeeded, or its output is not in S3."""
    job = read_job(name)
    if job is None:
        raise InvalidRequestError(
            f"modelSource.job: no training job named '{name}' in cluster '{record.clusterTag}'; "
            f"GET /clusters/{record.clusterTag}/jobs lists them.",
        )
    phase = jobs.phase(job)
    if phase is not JobPhase.SUCCEEDED:
        raise InvalidRequestError(
            f"modelSource.job: training job '{name}' is {phase.value}, not Succeeded; deploy its output once it has "
            "succeeded, or name the model's location instead.",
        )
    output = output_path(job)
    if output is None:
        raise InvalidRequestError(
            f"modelSource.job: training job '{name}' names no output path (an {' / '.join(OUTPUT_FLAGS)} argument); "
            "name the location its model was written to instead.",
        )
    if match := _S3_URI.match(output):
        return JobOutput(match["bucket"], (match["prefix"] or "").strip("/"))
    if (output + "/").startswith(S3_MOUNT + "/") and record.storageBucket:
        return JobOutput(record.storageBucket, output[len(S3_MOUNT) :].strip("/"))
    raise InvalidRequestError(
        f"modelSource.job: training job '{name}' wrote its output to {output}, which is not in S3 (an s3:// URI or "
        f"under {S3_MOUNT}); copy it to S3 and name that location instead.",
    )


def output_path(job: dict[str, Any]) -> str | None:
    """The value of the job container's first output argument, in `--flag=value` or `--flag value` form."""
    replica = ((job.get("spec") or {}).get("replicaSpecs") or [{}])[0]
    container = (((replica.get("template") or {}).get("spec") or {}).get("containers") or [{}])[0]
    argv = [str(arg) for arg in (container.get("command") or []) + (container.get("args") or [])]
    for index, arg in enumerate(argv):
        flag, equals, value = arg.partition("=")
        if flag in OUTPUT_FLAGS:
            if equals:
                return value or None
            return argv[index + 1] if index + 1 < len(argv) else None
    return None
