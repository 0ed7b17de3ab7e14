"""HyperPod instance types the control plane knows: accelerators, EFA interfaces, deep health checks.

One reviewed table; validation (EFA-only, deep health checks, ThreadsPerCore) and the sandbox's
simulated nodes read it. Types missing here are still accepted by HyperPod; they get no GPU facts.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class InstanceType:
    name: str
    gpus: int
    accelerator: str
    efa_interfaces: int
    vcpus: int
    memory_gib: int

    @property
    def deep_health_checks(self) -> bool:
        """HyperPod's deep health checks test NVIDIA GPUs (and EFA); they apply to GPU families."""
        return self.gpus > 0 and self.accelerator.startswith("nvidia")

    @property
    def threads_per_core(self) -> int:
        """p4/p5/p6 families run two threads per core (HyperPod's recommendation); others one."""
        return 2 if self.name.startswith(("ml.p4", "ml.p5", "ml.p6")) else 1

    @property
    def efa_only_capable(self) -> bool:
        """EFA-only interfaces are possible only with more than one EFA card."""
        return self.efa_interfaces > 1


_TABLE = [
    ("ml.g5.xlarge", 1, "nvidia-a10g", 0, 4, 16),
    ("ml.g5.2xlarge", 1, "nvidia-a10g", 0, 8, 32),
    ("ml.g5.4xlarge", 1, "nvidia-a10g", 0, 16, 64),
    ("ml.g5.8xlarge", 1, "nvidia-a10g", 1, 32, 128),
    ("ml.g5.12xlarge", 4, "nvidia-a10g", 1, 48, 192),
    ("ml.g5.24xlarge", 4, "nvidia-a10g", 1, 96, 384),
    ("ml.g5.48xlarge", 8, "nvidia-a10g", 1, 192, 768),
    ("ml.g6.xlarge", 1, "nvidia-l4", 0, 4, 16),
    ("ml.g6.2xlarge", 1, "nvidia-l4", 0, 8, 32),
    ("ml.g6.4xlarge", 1, "nvidia-l4", 0, 16, 64),
    ("ml.g6.8xlarge", 1, "nvidia-l4", 1, 32, 128),
    ("ml.g6.12xlarge", 4, "nvidia-l4", 1, 48, 192),
    ("ml.g6.24xlarge", 4, "nvidia-l4", 1, 96, 384),
    ("ml.g6.48xlarge", 8, "nvidia-l4", 1, 192, 768),
    ("ml.g6e.xlarge", 1, "nvidia-l40s", 0, 4, 32),
    ("ml.g6e.12xlarge", 4, "nvidia-l40s", 1, 48, 384),
    ("ml.g6e.48xlarge", 8, "nvidia-l40s", 4, 192, 1536),
    ("ml.p4d.24xlarge", 8, "nvidia-a100", 4, 96, 1152),
    ("ml.p5.48xlarge", 8, "nvidia-h100", 32, 192, 2048),
    ("ml.p5en.48xlarge", 8, "nvidia-h200", 16, 192, 2048),
    ("ml.p6-b200.48xlarge", 8, "nvidia-b200", 8, 192, 2048),
    ("ml.trn1.32xlarge", 16, "aws-trainium", 8, 128, 512),
    ("ml.trn2.48xlarge", 16, "aws-trainium2", 16, 192, 2048),
    ("ml.m5.xlarge", 0, "none", 0, 4, 16),
    ("ml.m5.2xlarge", 0, "none", 0, 8, 32),
    ("ml.c5.xlarge", 0, "none", 0, 4, 8),
    ("ml.t3.medium", 0, "none", 0, 2, 4),
]

INSTANCE_TYPES: dict[str, InstanceType] = {row[0]: InstanceType(*row) for row in _TABLE}


def instance_type(name: str) -> InstanceType | None:
    return INSTANCE_TYPES.get(name)


def ec2_type(name: str) -> str:
    """`ml.g6.4xlarge` → `g6.4xlarge` (the EC2 type whose AZ offerings decide availability)."""
    return name.removeprefix("ml.")
