"""Self-managed model servers: serving commands, their Deployments and Services, the model pool, calls to them."""
