"""boto3 implementations of the core's ports."""
