"""The storage context: stage 5 — an S3 bucket (and optionally an FSx for Lustre file system) mounted into the
cluster as PersistentVolumeClaims.

`plan` holds the stage's rules and plan (pure); `objects` the Kubernetes objects it applies; `steps` its
workflow steps.
"""
