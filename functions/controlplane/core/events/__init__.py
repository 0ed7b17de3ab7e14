"""HyperPod events in: recorded once, noted in order, waking the workflows that wait for them (`service`)."""
