"""How a PATCH changes an object: JSON merge patch, strategic merge patch, and server-side apply's field managers.

Pure functions over plain dicts; :class:`sandbox.k8s.store.ObjectStore` calls them inside its writes.
"""

from __future__ import annotations

from typing import Any

from sandbox.k8s.objects import copy_json, now, without_bookkeeping

JsonObject = dict[str, Any]

MERGE_PATCH = "application/merge-patch+json"
STRATEGIC_PATCH = "application/strategic-merge-patch+json"
APPLY_PATCH = "application/apply-patch+yaml"


def merge_patch(target: Any, patch: Any) -> Any:
    """RFC 7386 JSON merge patch: objects merge key by key, ``null`` removes a key, anything else replaces."""
    if not isinstance(patch, dict):
        return copy_json(patch)
    result = copy_json(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


def strategic_merge_patch(target: Any, patch: Any) -> Any:
    """Merge patch, except that lists of objects keyed by ``name`` merge item by item.

    That covers what the product patches (containers, env, volumes, ports); an item carrying
    ``$patch: delete`` removes the item of that name.
    """
    if not isinstance(patch, dict):
        return copy_json(patch)
    result = copy_json(target) if isinstance(target, dict) else {}
    for key, value in patch.items():
        current = result.get(key, [])
        if value is None:
            result.pop(key, None)
        elif _is_named_list(value) and _is_named_list(current):
            result[key] = _merge_named_lists(current, value)
        else:
            result[key] = strategic_merge_patch(result.get(key), value)
    return result


def drop_nulls(value: Any) -> Any:
    """An applied configuration without its ``null`` fields (apply treats them as unset)."""
    if isinstance(value, dict):
        return {key: drop_nulls(item) for key, item in value.items() if item is not None}
    if isinstance(value, list):
        return [drop_nulls(item) for item in value]
    return value


def manager_entry(manager: str, api_version: str, status_only: bool) -> JsonObject:
    """The ``managedFields`` entry an apply by ``manager`` records."""
    return {
        "manager": manager,
        "operation": "Apply",
        "apiVersion": api_version,
        "time": now(),
        "fieldsType": "FieldsV1",
        **({"subresource": "status"} if status_only else {}),
    }


def record_manager(live: JsonObject, new: JsonObject, entry: JsonObject) -> None:
    """Put ``entry`` into ``new``'s managedFields in place of the same manager's previous entry.

    Like a real server, the entry (and its time) only moves when the applied content changes something.
    """
    entries = live["metadata"].get("managedFields") or []
    previous = [e for e in entries if _owner(e) == _owner(entry)]
    unchanged = without_bookkeeping(new) == without_bookkeeping(live)
    if not (unchanged and previous and previous[0].get("apiVersion") == entry["apiVersion"]):
        new["metadata"]["managedFields"] = [e for e in entries if _owner(e) != _owner(entry)] + [entry]


def _owner(entry: JsonObject) -> tuple[Any, Any, Any]:
    """What identifies a managedFields entry: the manager, the operation and the subresource."""
    return (entry.get("manager"), entry.get("operation"), entry.get("subresource"))


def _is_named_list(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(item, dict) and "name" in item for item in value)


def _merge_named_lists(current: list[JsonObject], patch: list[JsonObject]) -> list[JsonObject]:
    merged = {item["name"]: item for item in current}
    deleted = set()
    for item in patch:
        if item.get("$patch") == "delete":
            deleted.add(item["name"])
        else:
            merged[item["name"]] = strategic_merge_patch(merged.get(item["name"]), item)
    return [item for name, item in merged.items() if name not in deleted]
