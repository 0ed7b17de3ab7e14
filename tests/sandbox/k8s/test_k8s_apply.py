"""Merge patch, strategic merge patch and server-side apply's field managers, as pure functions."""

from sandbox.k8s.apply import drop_nulls, manager_entry, merge_patch, record_manager, strategic_merge_patch


def test_merge_patch_merges_objects_removes_nulls_and_replaces_lists() -> None:
    target = {"data": {"a": "1", "b": "2"}, "items": [{"name": "x", "v": 1}]}

    patched = merge_patch(target, {"data": {"a": None, "c": "3"}, "items": [{"name": "y"}]})

    assert patched == {"data": {"b": "2", "c": "3"}, "items": [{"name": "y"}]}
    assert target["data"] == {"a": "1", "b": "2"}  # the target is not modified


def test_strategic_merge_patch_merges_named_list_items_and_deletes_by_directive() -> None:
    containers = [{"name": "app", "image": "app:1"}, {"name": "sidecar", "image": "proxy:1"}]

    updated = strategic_merge_patch({"containers": containers}, {"containers": [{"name": "app", "image": "app:2"}]})
    removed = strategic_merge_patch(
        {"containers": containers}, {"containers": [{"name": "sidecar", "$patch": "delete"}]}
    )
    added = strategic_merge_patch({"containers": containers}, {"containers": [{"name": "init", "image": "i:1"}]})

    assert updated["containers"] == [{"name": "app", "image": "app:2"}, {"name": "sidecar", "image": "proxy:1"}]
    assert removed["containers"] == [{"name": "app", "image": "app:1"}]
    assert [c["name"] for c in added["containers"]] == ["app", "sidecar", "init"]


def test_drop_nulls_removes_unset_fields_at_every_depth() -> None:
    assert drop_nulls({"a": None, "b": {"c": None, "d": 1}, "e": [{"f": None}]}) == {"b": {"d": 1}, "e": [{}]}


def test_a_manager_entry_moves_only_when_the_applied_content_changes_something() -> None:
    first = manager_entry("instantstart", "v1", status_only=False)
    live = {"metadata": {"name": "cfg", "resourceVersion": "3", "managedFields": [first]}, "data": {"a": "1"}}
    again = manager_entry("instantstart", "v1", status_only=False) | {"time": "later"}

    same = {"metadata": {"name": "cfg", "resourceVersion": "3", "managedFields": [first]}, "data": {"a": "1"}}
    record_manager(live, same, again)
    changed = {"metadata": {"name": "cfg", "resourceVersion": "3", "managedFields": [first]}, "data": {"a": "2"}}
    record_manager(live, changed, again)

    assert same["metadata"]["managedFields"] == [first]
    assert changed["metadata"]["managedFields"] == [again]


def test_managers_and_the_status_subresource_keep_separate_entries() -> None:
    ops = manager_entry("ops", "v1", status_only=False)
    live = {"metadata": {"name": "cfg", "managedFields": [ops]}, "data": {}}
    new = {"metadata": {"name": "cfg", "managedFields": [ops]}, "data": {"b": "1"}}

    record_manager(live, new, manager_entry("ops", "v1", status_only=True))

    assert [(e["manager"], e.get("subresource")) for e in new["metadata"]["managedFields"]] == [
        ("ops", None),
        ("ops", "status"),
    ]
