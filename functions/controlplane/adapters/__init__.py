"""Adapters: the only code that talks to AWS (boto3) and Kubernetes (the official client)."""
