"""One import name: the installed package is `gpucost`; the repository's rooms are its
subpackages (`gpucost.catalog`, ...) and never top-level modules on the import path."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _python(code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True,
                          text=True, timeout=60, env={"PATH": "/usr/bin:/bin"})


def test_import_gpucost_works_and_generic_names_do_not_leak(tmp_path: Path) -> None:
    ok = _python("import gpucost.flows.cli.main, gpucost.catalog.sources as s; "
                 "print(len(s.names()))", tmp_path)
    assert ok.returncode == 0, ok.stderr
    assert int(ok.stdout) >= 14
    for generic in ("catalog", "models", "flows", "warehouse"):
        leaked = _python(f"import {generic}", tmp_path)
        assert leaked.returncode != 0 and "ModuleNotFoundError" in leaked.stderr, generic


def test_wheel_holds_one_top_level_package_with_its_sql_and_csv(tmp_path: Path) -> None:
    # from a copy of the tracked files: a local build/ folder (setuptools' cache) would add
    # modules that no longer exist and hide a subpackage missing from `packages`
    src = tmp_path / "src"
    tracked = subprocess.run(["git", "-C", str(REPO), "ls-files", "-z"], check=True,
                             capture_output=True).stdout.decode().split("\0")
    for name in filter(None, tracked):
        if (REPO / name).is_file():
            (src / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, src / name)
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-qq", "--no-deps",
                    "--no-build-isolation", str(src), "-w", str(tmp_path)],
                   check=True, capture_output=True, timeout=120)
    [wheel] = tmp_path.glob("gpucost-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/", 1)[0] for n in names if not n.split("/", 1)[0].endswith(".dist-info")}
    assert tops == {"gpucost"}
    marts = {Path(n).name for n in names if n.startswith("gpucost/models/marts/")}
    assert {p.name for p in (REPO / "models" / "marts").rglob("*.sql")} <= marts
    assert "gpucost/catalog/accelerators.csv" in names
    # every module of the product's packages ships (a subpackage missing from pyproject's
    # `packages` list would install without its modules)
    product = {f"gpucost/{p.relative_to(src).as_posix()}"
               for room in ("catalog", "warehouse", "models", "flows", "cluster")
               for p in (src / room).rglob("*.py")}
    assert product - set(names) == set()
    assert "gpucost/models/glossary.csv" in names


def test_make_test_installs_nothing_outside_the_repository() -> None:
    """`make test` (and the set-up it runs) never calls a system package manager or sudo:
    a test that needs a browser finds one or skips saying why (issue 27, item 9)."""
    root = Path(__file__).resolve().parents[2]
    plan = subprocess.run(["make", "-n", "-B", "test"], cwd=root, capture_output=True,
                          text=True, timeout=60)
    assert plan.returncode == 0, plan.stderr
    words = set(re.findall(r"[\w-]+", plan.stdout))
    assert not words & {"apt-get", "apt", "dpkg", "sudo", "yum", "dnf", "apk", "brew"}
    assert "pytest" in words and ".venv/bin/python -m pip install" in plan.stdout
