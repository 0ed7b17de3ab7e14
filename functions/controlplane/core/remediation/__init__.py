"""The remediation policy per cluster (`policy`: set, plan then confirm where it replaces nodes), and what it does
with an unhealthy-node event (`service`)."""
