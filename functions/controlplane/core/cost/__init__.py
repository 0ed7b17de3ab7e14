"""The cost view: running instance-hours per instance group, priced on demand where the capacity is on demand.

`service` holds the one read (`CostService.view`). Spot and training-plan capacity is labelled, never priced at
the on-demand rate. Prices come from the `PriceGateway` port (the AWS Price List, cached by its adapter).
"""
