"""pytest imports test modules outside packages by their basename: two of one name break collection."""

from collections import defaultdict
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]


def test_no_two_test_modules_share_a_name():
    by_name: dict[str, list[str]] = defaultdict(list)
    for module in TESTS.rglob("test_*.py"):
        if not (module.parent / "__init__.py").exists():
            by_name[module.name].append(str(module.relative_to(TESTS)))
    assert {name: paths for name, paths in by_name.items() if len(paths) > 1} == {}
