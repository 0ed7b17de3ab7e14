"""The IAM roles of the control plane's Lambda functions: the step groups' roles, collected from the steps'
declarations (`steps`), and one module for each other function's role (API, MCP server, drift, events) and for the
Kubernetes access roles. What grants share is `controlplane.access`; the stack renders every `Grant` into one policy
statement (`infra.grants`)."""
