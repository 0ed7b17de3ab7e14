"""Workflow steps: each context's steps declared once (`network`, `eks`, `dependencies`, … : Task name, Lambda group,
service method, IAM grants), the groups they are served by (`groups`), the table that collects them (`registry`) and
the one `lambda_handler` every step function runs (`handler`)."""
