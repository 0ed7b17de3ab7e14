"""DynamoDB repositories, one module per table: `operations`, `registry` (clusters, their locks and VPC CIDR
reservations), `audit`, `confirmations`, `recipe_values` and `drift_reports`; `shared` holds what they all do alike.

Each item keeps the record as JSON in `body` beside the key and condition attributes, so conditional writes compare
a number and reads never need type conversion. The tables' layouts are `adapters/aws/tables.py`.
"""
