"""The dependencies context: stage 3 — what HyperPod needs inside an EKS cluster before CreateCluster.

`plan` says what the stage would create (pure); `steps` holds its workflow steps.
"""
