"""Every Kubernetes object the control plane writes, rendered by the product's own code from representative requests:
the versioned manifests, the training jobs (every recipe, and spec jobs of every kind with every option), managed
endpoints (every model source, JumpStart), model servers, downloads, storage, the features' objects and RBAC; and the
merge patches it sends. The contract tests check each against its kind's published schema.

A new renderer or recipe is added here, or `test_published_schemas` says which kind it misses.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from pydantic import SecretStr

from controlplane.adapters.k8s.manifests import MANIFESTS_DIR
from controlplane.adapters.k8s.manifests import render as render_manifest
from controlplane.core.downloads.manifest import download_job, token_secret
from controlplane.core.endpoints import manifest as endpoints
from controlplane.core.endpoints.sources import resolve
from controlplane.core.features import job_identity
from controlplane.core.features.catalog import karpenter, tiered_storage
from controlplane.core.ports.storage import LustreFileSystem
from controlplane.core.serving import command as serving_commands
from controlplane.core.serving import manifest as serving
from controlplane.core.storage.namespace import secret_reader_rbac
from controlplane.core.storage.objects import fsx_objects, storage_objects
from controlplane.core.training.kinds import JOB_KINDS
from controlplane.core.training.manifest import JobPlacement
from controlplane.core.training.recipes import render as render_recipe
from controlplane.core.training.recipes import shipped_recipes
from controlplane.core.workload_access import job_writer_rbac, serving_writer_rbac
from controlplane.models.downloads import DownloadPlan
from controlplane.models.endpoints import CreateEndpointRequest
from controlplane.models.recipes import SubmitRecipeJobRequest
from controlplane.models.serving import DeployModelRequest
from controlplane.models.storage import FsxPlan, StoragePlan
from controlplane.models.training import SubmitJobRequest
from tests.unit.records import cluster_record

JsonObject = dict[str, Any]
SHA = "0123456789abcdef0123456789abcdef01234567"
PLACEMENTS = {
    "efa+fsx": JobPlacement(namespace="ml", claim="s3-claim", fsx_claim="fsx-claim", efa_interfaces=4),
    "plain": JobPlacement("ml", "s3-claim", None, 0, service_account="instantstart-jobs"),
}
JOB_REQUESTS: dict[str, JsonObject] = {
    "minimal": {"name": "a", "image": "img", "instanceType": "ml.g5.12xlarge"},
    "everything": {
        "name": "llama-sft",
        "image": "123.dkr.ecr.us-west-2.amazonaws.com/train:1",
        "command": ["hyperpodrun", "--nproc-per-node=8"],
        "args": ["train.py", "--epochs", "3"],
        "nodes": 4,
        "gpusPerNode": 8,
        "instanceGroup": "workers",
        "efa": True,
        "deepHealthCheckedOnly": True,
        "sharedMemoryGi": 256,
        "environment": {"NCCL_DEBUG": "INFO", "HF_HOME": "/s3/hf"},
        "runPolicy": {"jobMaxRetryCount": 10, "restartPolicy": {"numRestartBeforeFullJobRestart": 2}},
        "logMonitoring": [
            {"name": "hang", "logPattern": ".*step.*", "expectedRecurringFrequencyInSeconds": 300},
            {"name": "slow", "logPattern": ".*tps=(\\d+).*", "metricThreshold": 100, "operator": "lt"},
        ],
        "elastic": {"minReplicas": 2, "maxReplicas": 4},
    },
    "tiered checkpointing": {
        "name": "ckpt",
        "image": "img",
        "tieredCheckpointing": True,
        "nodes": 2,
        "instanceType": "ml.g5.12xlarge",
    },
    "cpu only": {"name": "cpu", "image": "img", "gpusPerNode": 0, "instanceType": "ml.m5.xlarge"},
    "ray job": {
        "name": "rl",
        "kind": "RayJob",
        "image": "rayproject/ray:2.46.0-gpu",
        "command": ["python", "train.py", "--lr", "1e-5"],
        "nodes": 3,
        "gpusPerNode": 4,
        "instanceType": "ml.g5.12xlarge",
        "efa": True,
        "environment": {"WANDB_MODE": "offline"},
        "ray": {"runtimeEnv": {"pip": ["verl"]}, "shutdownAfterJobFinishes": False, "ttlSecondsAfterFinished": 60},
    },
    "ray cluster": {
        "name": "lab",
        "kind": "RayCluster",
        "image": "rayproject/ray:2.46.0",
        "nodes": 1,
        "instanceGroup": "workers",
    },
}
MODEL = {"image": "vllm/vllm-openai:v0.9.0", "gpus": 1, "cpu": "4", "memoryGi": 32, "args": ["--max-model-len=8192"]}
ENDPOINT_REQUESTS: dict[str, JsonObject] = {
    "s3": {"model": {**MODEL, "source": {"s3": {"path": "models/m"}}}},
    "fsx": {
        "model": {
            **MODEL,
            "source": {"fsx": {"fileSystemId": "fs-0123456789abcdef0", "path": "models/m", "mountName": "abcdef"}},
        },
        "kvCache": {"enableL1Cache": True, "l2": {"backend": "tieredstorage"}},
        "routing": {"strategy": "kvaware"},
        "autoscaling": {"minReplicas": 1, "maxReplicas": 4, "cooldownSeconds": 120},
    },
    "hugging face": {
        "model": {
            **MODEL,
            "environment": {"VLLM_USE_V1": "1"},
            "source": {"huggingFace": {"modelId": "Qwen/Qwen3-0.6B", "commitSha": SHA, "tokenSecret": "hf-token"}},
        },
        "kvCache": {"l2": {"backend": "redis", "localUrl": "redis://cache:6379"}},
    },
    "jumpstart": {
        "jumpStart": {"modelId": "deepseek-llm-r1-distill-qwen-1-5b", "modelVersion": "1.0.0", "acceptEula": True}
    },
    "jumpstart with cache, routing and autoscaling": {
        "jumpStart": {"modelId": "meta-textgeneration-llama-3-2-1b"},
        "replicas": 2,
        "kvCache": {"enableL1Cache": False, "l2": {"backend": "tieredstorage"}},
        "routing": {"strategy": "session"},
        "autoscaling": {"minReplicas": 0, "maxReplicas": 2},
    },
}
SERVER_REQUESTS: dict[str, JsonObject] = {
    "internal vllm": {"name": "qwen", "command": "vllm serve Qwen/Qwen3-0.6B --tensor-parallel-size 2", "gpus": 2},
    "external sglang": {
        "name": "sg",
        "command": "python -m sglang.launch_server --model-path Qwen/Qwen3-0.6B",
        "gpus": 1,
        "replicas": 2,
        "instanceType": "ml.g5.12xlarge",
        "serviceType": "external",
        "huggingFaceToken": "hf_secret",
    },
    "pool": {"name": "pool", "command": "vllm serve Qwen/Qwen3-0.6B", "gpus": 1, "serviceType": "pool"},
}


def rendered_objects() -> dict[str, JsonObject]:
    """Every object the product writes, by a readable id."""
    return {
        **_manifests(),
        **_jobs(),
        **_recipe_jobs(),
        **_endpoints(),
        **_model_servers(),
        **_downloads(),
        **_storage(),
        **_features(),
    }


def rendered_patches() -> dict[str, tuple[str, str, JsonObject]]:
    """The merge patches the product sends, by id: (apiVersion, kind, patch)."""
    container = {"name": serving.CONTAINER_NAME, "image": "vllm/vllm-openai:v0.9.1"}
    labels = {serving.BUSINESS_LABEL: "chat"}
    return {
        "model server: scale and new image": (
            serving.DEPLOYMENT_API,
            "Deployment",
            {"spec": {"replicas": 3, "template": {"spec": {"containers": [container]}}}},
        ),
        "pool worker: bind": (
            "v1",
            "Pod",
            {"metadata": {"labels": labels, "annotations": {serving.DELETION_COST_ANNOTATION: "10000"}}},
        ),
    }


def _manifests() -> dict[str, JsonObject]:
    objects = {}
    for path in sorted(MANIFESTS_DIR.glob("*/*.yaml")):
        for obj in render_manifest(path.parent.name, path.name, {"image": "registry.example.com/image:1"}):
            objects[f"manifest {path.parent.name}/{path.name}: {_name(obj)}"] = obj
    return objects


def _jobs() -> dict[str, JsonObject]:
    objects = {}
    for request_id, body in JOB_REQUESTS.items():
        request = SubmitJobRequest.model_validate(body)
        for placement_id, placement in PLACEMENTS.items():
            objects[f"job {request_id} ({placement_id})"] = JOB_KINDS[request.kind].render(request, placement)
    return objects


def _recipe_jobs() -> dict[str, JsonObject]:
    objects = {}
    for name, recipe in shipped_recipes().items():
        request = SubmitRecipeJobRequest(
            recipe=name, name="recipe-job", instanceType="ml.g5.12xlarge", efa=True, values=recipe.example
        )
        tracking = {"MLFLOW_TRACKING_URI": "arn:aws:sagemaker:us-west-2:123456789012:mlflow-tracking-server/t"}
        job = render_recipe(recipe, request, tracking)
        objects[f"recipe {name}"] = JOB_KINDS[job.kind].render(job, PLACEMENTS["efa+fsx"])
    return objects


def _endpoints() -> dict[str, JsonObject]:
    record = cluster_record("eks", "storage", at=_now(), storageBucket="data-bkt", storageClaim="ml/s3-claim")
    objects = {}
    for request_id, body in ENDPOINT_REQUESTS.items():
        request = CreateEndpointRequest.model_validate({"name": "chat", "instanceType": "ml.g5.12xlarge", **body})
        source = None if request.model is None else resolve(record, request.model.source, lambda _: None)
        objects[f"endpoint {request_id}"] = endpoints.render("demo", "ml", request, source)
    return objects


def _model_servers() -> dict[str, JsonObject]:
    objects = {}
    for request_id, body in SERVER_REQUESTS.items():
        request = DeployModelRequest.model_validate(body)
        parsed = serving_commands.parse(request.command, request.image, request.port)
        secret = serving.token_secret_name(request.name) if request.huggingFaceToken else None
        placement = serving.ServerPlacement("ml", "s3-claim", secret, None)
        objects[f"model server {request_id}: Deployment"] = serving.deployment(request, parsed, placement)
        external = request.serviceType.value == "external"
        objects[f"model server {request_id}: Service"] = serving.service(
            request.name, "ml", request.name, parsed.port, external, bound=request.serviceType.value == "pool"
        )
        if isinstance(request.huggingFaceToken, SecretStr) and secret:
            objects[f"model server {request_id}: Secret"] = token_secret(
                secret, "ml", request.huggingFaceToken.get_secret_value()
            )
    return objects


def _downloads() -> dict[str, JsonObject]:
    plan = {
        "jobName": "dl-qwen",
        "namespace": "ml",
        "claimName": "s3-claim",
        "bucketName": "data-bkt",
        "repoId": "Qwen/Qwen3-0.6B",
        "repoType": "model",
        "revision": "main",
        "prefix": "models",
        "deadlineSeconds": 3600,
    }
    return {
        "download: Job": download_job(DownloadPlan.model_validate(plan)),
        "download with token: Job": download_job(DownloadPlan.model_validate({**plan, "tokenSecret": "dl-token"})),
        "download: Secret": token_secret("dl-token", "ml", "hf_secret"),
    }


def _storage() -> dict[str, JsonObject]:
    fsx = FsxPlan(storageCapacityGiB=1200, deploymentType="SCRATCH_2", claimName="fsx-claim")
    plan = StoragePlan(bucketName="data-bkt", bucketSource="created", claimName="s3-claim", namespace="ml", fsx=fsx)
    file_system = LustreFileSystem(
        "fs-0123456789abcdef0", "AVAILABLE", "fs.fsx.us-west-2.amazonaws.com", "abcdef", 1200, {}
    )
    objects = {f"storage s3: {_name(obj)}": obj for obj in storage_objects(plan, "demo", "us-west-2")}
    objects.update({f"storage fsx: {_name(obj)}": obj for obj in fsx_objects(file_system, fsx, "ml", "demo")})
    return objects


def _features() -> dict[str, JsonObject]:
    objects = {f"karpenter: {_name(obj)}": obj for obj in karpenter.karpenter_objects(["workers", "spot"])}
    objects["trainingOperator: jobs ServiceAccount"] = job_identity._account_object("ml")
    objects["tieredStorage: ServiceAccount"] = tiered_storage.TieredStorage._account_object(
        "arn:aws:iam::123456789012:role/tiered"
    )
    objects.update({f"job writers RBAC: {_name(obj)}": obj for obj in job_writer_rbac()})
    objects.update({f"model server writers RBAC: {_name(obj)}": obj for obj in serving_writer_rbac()})
    objects.update({f"secret reader RBAC: {_name(obj)}": obj for obj in secret_reader_rbac("ml")})
    return objects


def _name(obj: JsonObject) -> str:
    metadata = obj["metadata"]
    namespace = f"{metadata['namespace']}/" if metadata.get("namespace") else ""
    return f"{obj['kind']} {namespace}{metadata['name']}"


def _now() -> datetime:
    return datetime(2026, 1, 1, tzinfo=UTC)
