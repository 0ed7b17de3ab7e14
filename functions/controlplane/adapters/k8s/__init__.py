"""Kubernetes access through the official client, authenticated with EKS bearer tokens."""
