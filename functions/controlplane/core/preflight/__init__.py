"""Pre-flight: quotas, subnet addresses and training-plan capacity checked before anything is created.

`rules` holds the pure checks (numbers in, `PreflightCheck` out); `service` reads the account once per request
(Service Quotas, live usage, the subnet's free addresses) and composes them for each creating or growing request.
"""
