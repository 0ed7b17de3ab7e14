"""Published CRDs the sandbox serves with their real schemas, as data files derived from their sources (`derive.py`):

- `hyperpodpytorchjobs.sagemaker.amazonaws.com`: the HyperPod SDK's models (PyPI `sagemaker-hyperpod` 3.12.0);
- `inferenceendpointconfigs.…`, `jumpstartmodels.inference.sagemaker.aws.amazon.com`: the inference operator's CRDs
  (aws/sagemaker-hyperpod-cli, helm_chart/HyperPodHelmChart/charts/inference-operator/config/crd, 011ca92);
- `rayjobs.ray.io`, `rayclusters.ray.io`: KubeRay v1.4.2's CRDs (the operator version the control plane pins), which
  the tests check rendered jobs against (the control plane installs KubeRay with open schemas of its own);
- `nodepools.karpenter.sh`: Karpenter v1.14.1's NodePool CRD (karpenter.sh/v1, kubernetes-sigs/karpenter);
- `workspaces.workspace.jupyter.org`: jupyter-k8s's Workspace CRD (jupyter-infra/jupyter-k8s v0.2.0-5, f267035), the
  controller the HyperPod spaces add-on packages (MIT).

HyperPod's HyperpodNodeClass has no published schema, so the sandbox serves it open. Every other source is
Apache-2.0; each file names its own in `metadata.annotations["instantstart.aws/derived-from"]`.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from sandbox.k8s.objects import copy_json

HERE = Path(__file__).resolve().parent


def published_crd(name: str) -> dict[str, Any]:
    """The derived CRD `name` (e.g. `jumpstartmodels.inference.sagemaker.aws.amazon.com`), a copy the caller owns."""
    return copy_json(_load(name))


@cache
def _load(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads((HERE / f"{name}.json").read_text())
    return loaded
