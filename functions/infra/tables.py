"""The control plane's DynamoDB tables: one per `TableSpec` of the runtime's `TABLES` (keys, indexes, time to
live), each on demand, encrypted, with point-in-time recovery, protected from deletion and retained with the stack.
Which function reaches which table is its access's (`FunctionAccess.tables`), not this module's."""

from __future__ import annotations

from aws_cdk import RemovalPolicy
from aws_cdk import aws_dynamodb as dynamodb
from constructs import Construct

from controlplane.adapters.aws.tables import TABLES, TableSpec
from infra.parts import Part


class Tables(Part):
    """`by_setting`: each table by the setting that names it (`operations_table`, ...)."""

    def __init__(self, scope: Construct, construct_id: str) -> None:
        super().__init__(scope, construct_id)
        self.by_setting = {spec.setting: self._table(spec) for spec in TABLES}

    def _table(self, spec: TableSpec) -> dynamodb.Table:
        table = dynamodb.Table(
            self,
            f"{spec.logical_name}Table",
            partition_key=_attribute(spec.partition_key),
            sort_key=_attribute(spec.sort_key) if spec.sort_key else None,
            billing_mode=dynamodb.BillingMode.PAY_PER_REQUEST,
            encryption=dynamodb.TableEncryption.AWS_MANAGED,
            point_in_time_recovery_specification=dynamodb.PointInTimeRecoverySpecification(
                point_in_time_recovery_enabled=True
            ),
            time_to_live_attribute=spec.ttl_attribute,
            deletion_protection=True,
            removal_policy=RemovalPolicy.RETAIN,
        )
        for index in spec.indexes:
            table.add_global_secondary_index(
                index_name=index.name,
                partition_key=_attribute(index.partition_key),
                sort_key=_attribute(index.sort_key) if index.sort_key else None,
                projection_type=dynamodb.ProjectionType.ALL,
            )
        return table


def _attribute(name: str) -> dynamodb.Attribute:
    return dynamodb.Attribute(name=name, type=dynamodb.AttributeType.STRING)
