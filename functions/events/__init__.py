"""EventBridge entry points: HyperPod events and schedules."""
