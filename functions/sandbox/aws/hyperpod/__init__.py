"""SageMaker HyperPod in the sandbox: a plain-Python simulation (`simulation`, joining the clusters' `lifecycle` and
the `node_actions` over shared `state`; model, rules, fleet, clock) and its SageMaker wire operations (`wire`),
registered with moto by :mod:`sandbox.aws.hyperpod.extension`.
"""
