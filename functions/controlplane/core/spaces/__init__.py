"""Dev spaces: the HyperPod spaces add-on's Workspace objects (`manifest`) and the service over them (`service`)."""
