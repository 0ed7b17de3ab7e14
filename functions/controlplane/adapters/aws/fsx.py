"""FSx for Lustre file systems for one Region, tagged at creation and found by those tags."""

from __future__ import annotations

from typing import Any

from botocore.exceptions import ClientError

from controlplane.adapters.aws.session import client, error_code, tag_dict, tag_list
from controlplane.core.ports.storage import LustreFileSystem, LustreSpec

LUSTRE_VERSION = "2.15"


def _file_system(data: dict[str, Any]) -> LustreFileSystem:
    lustre = data.get("LustreConfiguration") or {}
    return LustreFileSystem(
        file_system_id=data["FileSystemId"],
        lifecycle=data.get("Lifecycle", ""),
        dns_name=data.get("DNSName"),
        mount_name=lustre.get("MountName"),
        storage_capacity_gib=int(data.get("StorageCapacity", 0)),
        tags=tag_dict(data.get("Tags")),
        failure=(data.get("FailureDetails") or {}).get("Message"),
    )


class AwsFileSystemGateway:
    def __init__(self, region: str) -> None:
        self._region = region

    def lustre_file_systems(self, tags: dict[str, str]) -> list[LustreFileSystem]:
        pages = client("fsx", self._region).get_paginator("describe_file_systems").paginate()
        found = [
            _file_system(data) for page in pages for data in page["FileSystems"] if data["FileSystemType"] == "LUSTRE"
        ]
        return [file_system for file_system in found if tags.items() <= file_system.tags.items()]

    def create_lustre(self, spec: LustreSpec) -> LustreFileSystem:
        lustre: dict[str, Any] = {"DeploymentType": spec.deployment_type}
        if spec.per_unit_storage_throughput is not None:
            lustre["PerUnitStorageThroughput"] = spec.per_unit_storage_throughput
        response = client("fsx", self._region).create_file_system(
            ClientRequestToken=spec.client_token,
            FileSystemType="LUSTRE",
            FileSystemTypeVersion=LUSTRE_VERSION,
            StorageCapacity=spec.storage_capacity_gib,
            StorageType="SSD",
            SubnetIds=[spec.subnet_id],
            SecurityGroupIds=list(spec.security_group_ids),
            LustreConfiguration=lustre,
            Tags=tag_list(spec.tags),
        )
        return _file_system(response["FileSystem"])

    def delete_file_system(self, file_system_id: str) -> None:
        try:
            client("fsx", self._region).delete_file_system(
                FileSystemId=file_system_id, LustreConfiguration={"SkipFinalBackup": True}
            )
        except ClientError as error:
            if error_code(error) != "FileSystemNotFound":
                raise
