"""The sandbox's Kubernetes API servers: one in-process emulation serving every EKS cluster's endpoint.

The production code talks to clusters with the official ``kubernetes`` client; in the sandbox each EKS
endpoint points at :mod:`sandbox.k8s.http`, a thin HTTP layer over :mod:`sandbox.k8s.emulator` (the clusters,
their lock and listeners), whose per-cluster :mod:`sandbox.k8s.store` holds the objects (stored in
:mod:`sandbox.k8s.buckets`) and the write semantics (:mod:`sandbox.k8s.apply`, :mod:`sandbox.k8s.selectors`).
Everything below the HTTP layer is plain Python.
"""
