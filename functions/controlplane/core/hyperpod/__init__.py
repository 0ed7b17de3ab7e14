"""The HyperPod context: stage 4 (the cluster with its first instance group), instance groups and nodes.

`stage` holds the stage-4 workflow steps; `groups` the instance-group service the API calls and `group_steps` the
instance-group workflow steps; `group_rules` what a group change may be (and the explicit diff); `nodes` the node
list and batch actions; `conversions` the translations between the API's group models and the port's entities.
SageMaker's wire shapes stay in the adapter (`adapters/aws/sagemaker.py`).
"""
