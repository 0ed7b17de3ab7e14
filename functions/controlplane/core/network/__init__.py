"""The network/EKS context: stage 1 — the cluster's VPC and the EKS control plane.

`plan` chooses the VPC CIDR and lays out the subnets (pure) and says what stage 1 would create;
`eks_stack` holds the stage's workflow steps (create, wait, delete).
"""
