"""SageMaker HyperPod in the sandbox: a plain-Python simulation (model, rules, fleet, clock) and its SageMaker
wire operations, registered with moto by :mod:`sandbox.aws.hyperpod.extension`.
"""
