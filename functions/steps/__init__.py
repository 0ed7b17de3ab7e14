"""Workflow steps: the table from Task name to the service method it runs (`registry`) and the one
`lambda_handler` every step function runs (`handler`)."""
