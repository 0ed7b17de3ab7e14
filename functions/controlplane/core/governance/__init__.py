"""HyperPod task governance: the teams of a cluster and their compute quotas (`teams`)."""
