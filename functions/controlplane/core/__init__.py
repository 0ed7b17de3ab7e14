"""Domain services. Imports models and ports only: no boto3, kubernetes, mcp or Powertools."""
