"""The remediation policy per cluster, and what it does with an unhealthy-node event (`service`)."""
