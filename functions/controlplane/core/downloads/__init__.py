"""Downloads from Hugging Face into a cluster's S3 claim (an operation that ends with its Kubernetes Job), and the
claim's contents by prefix."""
