"""Monitoring: a cluster's overview aggregated on the server from streamed pages (`tally`), and the services that
answer the overview and the paged pods (`service`). Metrics and alarms are `controlplane/observability.py` and
`infra/monitoring.py`; node and job lists are their own contexts'."""
