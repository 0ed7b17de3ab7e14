"""Domain services, one package or module per context. Imports models and ports only: no boto3, kubernetes, mcp or
Powertools. `.importlinter` places every context in one layered graph (a context imports only those below it)."""
