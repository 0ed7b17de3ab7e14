"""Workflow steps: one module per Step Functions Task state, each exposing `lambda_handler`.

A module's name is its state's name in snake case ("Create EKS Cluster" ⇄ create_eks_cluster.py ⇄
`${CreateEksClusterFunctionArn}` in the ASL).
"""
