"""Every hostile-input case listed in docs/reliability.md names a test that exists."""

from __future__ import annotations

import ast
from pathlib import Path

from hostile_cases import CASES, ROOT


def _tests_in(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}


def test_every_case_names_an_existing_test() -> None:
    missing = []
    for case in CASES:
        file, name = case.test.split("::")
        if name not in _tests_in(ROOT / file):
            missing.append(case.test)
    assert not missing


def test_every_numbered_failure_of_the_issue_has_a_case() -> None:
    assert {c.item for c in CASES} == set(range(1, 12))


def test_every_client_case_names_an_existing_test() -> None:
    from hostile_cases import CLIENT_CASES

    missing = [c.test for c in CLIENT_CASES
               if c.test.split("::")[1] not in _tests_in(ROOT / c.test.split("::")[0])]
    assert not missing
    assert {c.item for c in CLIENT_CASES} == set(range(1, 12))


def test_every_round4_case_names_an_existing_test() -> None:
    """Issue 40's cases (embedded and cluster): each names a test that exists; the embedded
    ones cover the issue's items 1-9."""
    from hostile_cases import ROUND4_CASES, ROUND4_CLUSTER_CASES

    missing = [c.test for c in ROUND4_CASES + ROUND4_CLUSTER_CASES
               if c.test.split("::")[1] not in _tests_in(ROOT / c.test.split("::")[0])]
    assert not missing
    assert {c.item for c in ROUND4_CASES} == set(range(1, 10))
