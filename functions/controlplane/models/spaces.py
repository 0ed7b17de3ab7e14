"""Dev spaces: JupyterLab and Code Editor spaces on a cluster (the HyperPod spaces add-on's Workspace), with the
cluster's S3 claim mounted at ~/workspace/s3 — the seed's data contract, as pods see it at /s3."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from controlplane.models.common import Contract, View

SPACE_NAME_PATTERN = r"^[a-z]([a-z0-9-]{0,38}[a-z0-9])?$"
AppType = Literal["jupyterlab", "code-editor"]
DesiredStatus = Literal["Running", "Stopped"]
SpaceStatus = Literal["Starting", "Running", "Stopping", "Stopped", "Failed"]
# The images a space may run: SageMaker Distribution, the images the add-on's system templates allow
# (SageMaker Developer Guide, "Customize add-on": allowedImages).
CPU_IMAGE = "public.ecr.aws/sagemaker/sagemaker-distribution:latest-cpu"
GPU_IMAGE = "public.ecr.aws/sagemaker/sagemaker-distribution:latest-gpu"
ALLOWED_SPACE_IMAGES = (CPU_IMAGE, GPU_IMAGE)
MAX_SPACE_GPUS = 8


class CreateSpaceRequest(Contract):
    name: str = Field(pattern=SPACE_NAME_PATTERN, description="DNS label, 1-40 characters.")
    appType: AppType = "jupyterlab"
    gpus: int = Field(default=0, ge=0, le=MAX_SPACE_GPUS)
    image: str | None = Field(default=None, description="One of the allowed images; default: latest-gpu with GPUs.")


class UpdateSpaceRequest(Contract):
    desiredStatus: DesiredStatus = Field(description="Running starts the space, Stopped stops it (storage kept).")


class SpaceView(View):
    name: str
    appType: str
    image: str
    gpus: int
    desiredStatus: DesiredStatus
    status: SpaceStatus
    namespace: str
    s3MountPath: str = Field(description="Where the cluster's S3 claim is mounted in the space.")
    open: str | None = Field(default=None, description="How to open the running space (port-forward).")


class SpaceList(View):
    clusterTag: str
    spaces: list[SpaceView]
    allowedImages: list[str]
