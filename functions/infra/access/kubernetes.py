"""The control plane's Kubernetes access roles: signing identities, whose cluster access comes from the EKS access
entries that `ensure_access_entry` creates for them. The access role (cluster admin) is assumed by the step groups
that reach the Kubernetes API; the view role by the API, the drift reconcile and the live logs; the jobs role by the
API's job writes."""

from __future__ import annotations

from controlplane.access.eks import DESCRIBE_EKS_CLUSTER
from controlplane.access.grant import Grant

# What the Kubernetes access and view roles themselves may do.
KUBERNETES_ROLE_GRANTS = (DESCRIBE_EKS_CLUSTER,)
# Reading a cluster through the view role, which every cluster's access entry limits to AmazonEKSViewPolicy.
ASSUME_VIEW_ROLE = Grant(("sts:AssumeRole",), ("{kubernetes_view_role_arn}",))
# Writing job and endpoint objects as the jobs role, whose access entry names only the job writers' group.
ASSUME_JOBS_ROLE = Grant(("sts:AssumeRole",), ("{kubernetes_jobs_role_arn}",))
