"""The local runtime (`make run`): real handlers and workflows on moto and a Kubernetes emulator.

``runtime`` provisions the simulated account and dispatches Lambda tasks to the real step handlers; ``server``
is the HTTP front door (API, MCP, Kubernetes endpoints, controls); ``faults`` holds injected step failures;
``aws/`` has one module or package per AWS service the sandbox simulates beyond moto; ``k8s/`` emulates the
Kubernetes API servers. Never shipped to Lambda and never imported by Lambda code.
"""
