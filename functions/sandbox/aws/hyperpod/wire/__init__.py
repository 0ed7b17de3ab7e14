"""SageMaker's HyperPod wire operations over the simulation: request dicts in, response dicts out.

One function per operation the control plane calls (adapters/aws/sagemaker.py and account.py), in `operations`: it
reads the JSON request into the model's types (`requests`), calls
:class:`~sandbox.aws.hyperpod.simulation.HyperPodSimulation`, and renders the result in the shape botocore's output
model declares (`responses`). Refusals stay :class:`~sandbox.aws.hyperpod.model.HyperPodError`;
:mod:`sandbox.aws.hyperpod.extension` renders them.
"""
