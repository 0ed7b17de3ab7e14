"""Training jobs: HyperPodPyTorchJob manifests from requests, checked against the CRD schema and the cluster."""
