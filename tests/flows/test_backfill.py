"""`gpucost backfill` (issue 39 item 2): a catalog's git history loaded one version per commit,
observed at the commit's committer date, idempotently, published once.

The git repositories are built here, in tmp dirs, from the recorded SkyPilot-format Lambda
catalogs (../shared/data/prices/skypilot_format, read in place; README there: both are
`lambda/vms.csv` of the anycloud-sh/catalog repository, complete files).

Figures worked out by hand from those CSVs (`grep '^gpu_8x_h100' FILE`):

* lambda_vms_2026-04-02.csv: `gpu_8x_h100_sxm5`, H100, 8 GPUs, Price 27.52 in each of its 17
  regions: 27.52 / 8 = 3.44 USD per GPU-hour. The other H100 SXM5 sizes cost more per GPU
  (1x 3.78; 2x 7.34 / 2 = 3.67; 4x 14.20 / 4 = 3.55), so 3.44 is also Lambda's cheapest H100
  SXM5 per-GPU price that day (price_history.price_per_gpu_hour), over 4 sizes x 17 regions
  = 68 offers, the dearest 3.78.
* lambda_vms_2026-05-07.csv: `gpu_8x_h100_sxm5` 31.92 in 17 regions: 31.92 / 8 = 3.99,
  again the cheapest per GPU (1x 4.29; 2x 8.38 / 2 = 4.19; 4x 16.36 / 4 = 4.09), the dearest
  4.29.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import duckdb
import pytest

from gpucost.flows.cli.main import main
from gpucost.flows.cli.output import EXIT_OK, EXIT_SOURCE_FAILED, EXIT_USAGE

SKY = "prices/skypilot_format"
APRIL, MAY = "2026-04-02T12:00:00Z", "2026-05-07T12:00:00Z"


@pytest.fixture(scope="module")
def git() -> str:
    """The git binary (backfill runs it): skip when absent, fail under CI=true."""
    found = shutil.which("git")
    if found is None:
        message = "backfill needs the git binary; none on PATH"
        if os.environ.get("CI") == "true":
            pytest.fail(message)
        pytest.skip(message)
    return found


def make_repo(repo: Path, commits: list[tuple[str, bytes | None, str]]) -> list[str]:
    """A git repository with one commit per (path, content or None to delete, committer
    date); returns the commit shas, oldest first."""
    repo.mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.invalid",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.invalid"}

    def git(*args: str, **extra: str) -> str:
        return subprocess.run(["git", "-C", str(repo), *args], env={**env, **extra},
                              check=True, capture_output=True, text=True).stdout.strip()

    git("init", "-q", ".")
    shas = []
    for path, content, when in commits:
        target = repo / path
        if content is None:
            git("rm", "-q", path)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(content)
            git("add", path)
        git("commit", "-q", "-m", f"{path} at {when}", GIT_AUTHOR_DATE=when,
            GIT_COMMITTER_DATE=when)
        shas.append(git("rev-parse", "HEAD"))
    return shas


def counts(data: Path) -> dict[str, int]:
    """Rows of every raw table, and of price_history as published."""
    out = {}
    with duckdb.connect(str(data / "raw.duckdb"), read_only=True) as con:
        for (table,) in con.execute("select table_name from duckdb_tables()").fetchall():
            out[f"raw.{table}"] = con.execute(f'select count(*) from "{table}"').fetchone()[0]
    with duckdb.connect(str(data / "gpucost.duckdb"), read_only=True) as con:
        out["price_history"] = con.execute("select count(*) from price_history").fetchone()[0]
    return out


def test_backfill_puts_each_commit_on_its_day_and_twice_adds_nothing(
        git, shared_data, tmp_path, monkeypatch, capsys):
    sky = shared_data / SKY
    repo, data = tmp_path / "catalog", tmp_path / "data"
    shas = make_repo(repo, [
        ("lambda/vms.csv", (sky / "lambda_vms_2026-04-02.csv").read_bytes(), APRIL),
        ("lambda/vms.csv", (sky / "lambda_vms_2026-05-07.csv").read_bytes(), MAY),
    ])
    monkeypatch.setenv("GPUCOST_DATA_DIR", str(data))
    args = ["backfill", str(repo), "--path", "lambda/vms.csv", "--source", "skypilot"]
    assert main(args) == EXIT_OK
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith(f"{shas[0][:10]} 2026-04-02 12:00 lambda/vms.csv: ")
    assert out[1].startswith(f"{shas[1][:10]} 2026-05-07 12:00 lambda/vms.csv: ")
    assert "2 commit(s)" in out[2] and "2 loaded" in out[2] and out[3].startswith("published")

    with duckdb.connect(str(data / "gpucost.duckdb"), read_only=True) as con:
        history = con.execute(
            "select cast(day as varchar), price_per_gpu_hour, max_price_per_gpu_hour, "
            "n_offers, sources from price_history where provider = 'lambda' "
            "and accelerator_id = 'nvidia-h100-sxm5-80gb' and pricing_model = 'on_demand' "
            "order by day").fetchall()
    assert history == [("2026-04-02", pytest.approx(3.44), pytest.approx(3.78), 68, "skypilot"),
                       ("2026-05-07", pytest.approx(3.99), pytest.approx(4.29), 68, "skypilot")]
    with duckdb.connect(str(data / "raw.duckdb"), read_only=True) as con:
        sku = con.execute(
            "select cast(day as varchar), min(price_per_hour), max(price_per_hour), count(*) "
            "from price_daily where sku = 'gpu_8x_h100_sxm5' group by day order by day"
        ).fetchall()
        observed = con.execute("select payload_name, observed_at, observed_at_basis "
                               "from fetches order by fetch_id").fetchall()
    assert sku == [("2026-04-02", 27.52, 27.52, 17), ("2026-05-07", 31.92, 31.92, 17)]
    assert [(n, t.isoformat(), b) for n, t, b in observed] == [
        ("lambda/vms.csv", "2026-04-02T12:00:00+00:00", "option"),
        ("lambda/vms.csv", "2026-05-07T12:00:00+00:00", "option")]

    before = counts(data)
    assert main(args) == EXIT_OK
    out = capsys.readouterr().out.splitlines()
    assert all("skipped (already backfilled" in line for line in out[:2])
    assert "0 loaded" in out[2] and "2 skipped as already backfilled" in out[2]
    assert counts(data) == before


def test_old_history_does_not_displace_what_is_in_force(git, shared_data, tmp_path,
                                                         monkeypatch, capsys):
    """The 2026-05-07 catalog is in force (ingested first); backfilling a history that only
    holds the older 2026-04-02 version leaves `gpucost offers H100:8` as it was (Lambda's 8x
    H100 at 31.92, not 27.52), and price_history gains the older day."""
    sky = shared_data / SKY
    repo, data = tmp_path / "catalog", tmp_path / "data"
    make_repo(repo, [("catalogs/v8/lambda/vms.csv",
                      (sky / "lambda_vms_2026-04-02.csv").read_bytes(), APRIL)])
    monkeypatch.setenv("GPUCOST_DATA_DIR", str(data))
    assert main(["ingest", "skypilot", str(sky / "lambda_vms_2026-05-07.csv"),
                 "--observed-at", "2026-05-07"]) == EXIT_OK

    def offers() -> list[dict]:
        capsys.readouterr()
        assert main(["offers", "H100:8", "--format", "json"]) == EXIT_OK
        rows = json.loads(capsys.readouterr().out)
        for row in rows:
            row.pop("age_days", None)  # grows with the clock between the two calls
        return rows

    now = offers()
    assert [(r["sku"], r["price_per_hour"]) for r in now if r["provider"] == "lambda"] == [
        ("gpu_8x_h100_sxm5", 31.92)]
    assert main(["backfill", str(repo), "--path", "catalogs/v8/lambda/vms.csv",
                 "--source", "skypilot"]) == EXIT_OK
    assert offers() == now
    with duckdb.connect(str(data / "gpucost.duckdb"), read_only=True) as con:
        days = con.execute(
            "select cast(day as varchar), price_per_gpu_hour from price_history "
            "where provider = 'lambda' and accelerator_id = 'nvidia-h100-sxm5-80gb' "
            "order by day").fetchall()
    assert days == [("2026-04-02", pytest.approx(3.44)), ("2026-05-07", pytest.approx(3.99))]


def test_a_refused_version_is_one_line_and_the_rest_loads(git, shared_data, tmp_path,
                                                          monkeypatch, capsys):
    """The recorded header-only catalog of a failed run (README: commit 5bdbfd4) between the
    two good ones: refused by name (EmptyPayloadError), exit 3, the others loaded."""
    sky = shared_data / SKY
    repo, data = tmp_path / "catalog", tmp_path / "data"
    make_repo(repo, [
        ("lambda/vms.csv", (sky / "lambda_vms_2026-04-02.csv").read_bytes(), APRIL),
        ("lambda/vms.csv",
         (sky / "lambda_vms_2026-05-07_failed_run_header_only.csv").read_bytes(),
         "2026-05-07T04:37:00Z"),
        ("lambda/vms.csv", (sky / "lambda_vms_2026-05-07.csv").read_bytes(), MAY),
    ])
    monkeypatch.setenv("GPUCOST_DATA_DIR", str(data))
    assert main(["backfill", str(repo), "--path", "lambda", "--source", "skypilot",
                 "--no-publish"]) == EXIT_SOURCE_FAILED
    out = capsys.readouterr().out.splitlines()
    assert "255 rows accepted" in out[0]
    assert "2026-05-07 04:37 lambda/vms.csv: REFUSED EmptyPayloadError" in out[1]
    assert "391 rows accepted" in out[2]
    assert "2 loaded" in out[3] and "1 refused" in out[3]
    assert "not published (--no-publish)" in out[4]
    assert not (data / "gpucost.duckdb").exists()
    # the refused version is remembered too: a second run skips all three
    assert main(["backfill", str(repo), "--path", "lambda", "--source", "skypilot",
                 "--no-publish"]) == EXIT_OK
    assert "3 skipped as already backfilled" in capsys.readouterr().out


def test_versions_of_a_folder_oldest_first(git, tmp_path):
    """A folder (or glob) backfills several clouds: every added or changed file, by commit,
    oldest first; a deletion has no version."""
    from gpucost.flows.backfill import payload_name, versions

    repo = tmp_path / "catalog"
    shas = make_repo(repo, [
        ("v8/lambda/vms.csv", b"a", "2024-01-01T00:00:00Z"),
        ("v8/gcp/vms.csv", b"b", "2024-01-02T00:00:00Z"),
        ("v8/lambda/vms.csv", b"c", "2024-01-03T06:30:00+02:00"),
        ("v8/gcp/vms.csv", None, "2024-01-04T00:00:00Z"),
        ("v8/lambda/images.csv", b"d", "2024-01-05T00:00:00Z"),
    ])
    got = [(v.commit, v.committed_at.isoformat(), v.path)
           for v in versions(repo, "v8/*/vms.csv")]
    assert got == [(shas[0], "2024-01-01T00:00:00+00:00", "v8/lambda/vms.csv"),
                   (shas[1], "2024-01-02T00:00:00+00:00", "v8/gcp/vms.csv"),
                   (shas[2], "2024-01-03T04:30:00+00:00", "v8/lambda/vms.csv")]
    assert len(list(versions(repo, "v8"))) == 4
    assert payload_name("catalogs/v8/do/vms.csv") == "do/vms.csv"
    assert payload_name("catalogs/v8/lambda/vms.csv", "lambda") == "lambda/vms.csv"
    assert payload_name("vms.csv", "nebius") == "nebius/vms.csv"


@pytest.mark.parametrize("case", ["not_a_repo", "never_touched", "no_dir"])
def test_bad_repository_or_path_is_a_named_usage_error(git, case, tmp_path, monkeypatch,
                                                       capsys):
    repo = tmp_path / "catalog"
    if case == "not_a_repo":
        repo.mkdir()
    elif case == "never_touched":
        make_repo(repo, [("lambda/vms.csv", b"x", "2024-01-01T00:00:00Z")])
    monkeypatch.setenv("GPUCOST_DATA_DIR", str(tmp_path / "data"))
    path = "gcp/vms.csv" if case == "never_touched" else "lambda/vms.csv"
    assert main(["backfill", str(repo), "--path", path, "--source", "skypilot"]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert {"not_a_repo": "not a git repository", "no_dir": "no such directory",
            "never_touched": "no commit of"}[case] in err
    if case == "never_touched":
        assert "'gcp/vms.csv'" in err
    assert not (tmp_path / "data").exists()  # refused before the warehouse is opened


def test_provider_names_the_folder(git, tmp_path, monkeypatch, capsys):
    """`--provider` overrides the folder: a file kept at `mirror/vms.csv` is read as Lambda's
    (the project's fixture tests/fixtures/skypilot/lambda_vms_tiny.csv: gpu_8x_h100_sxm5
    31.92 and gpu_1x_gh200 2.29 load; gpu_1x_a10 at price 0 is refused; the CPU row is no
    GPU offer)."""
    fixture = Path(__file__).resolve().parents[1] / "fixtures/skypilot/lambda_vms_tiny.csv"
    repo, data = tmp_path / "catalog", tmp_path / "data"
    make_repo(repo, [("mirror/vms.csv", fixture.read_bytes(), "2025-02-03T04:05:06Z")])
    monkeypatch.setenv("GPUCOST_DATA_DIR", str(data))
    assert main(["backfill", str(repo), "--path", "mirror/vms.csv", "--source", "skypilot",
                 "--provider", "lambda", "--no-publish"]) == EXIT_OK
    assert "lambda/vms.csv: 2 rows accepted, 1 refused" in capsys.readouterr().out
    with duckdb.connect(str(data / "raw.duckdb"), read_only=True) as con:
        rows = con.execute("select provider, sku, price_per_hour, observed_at from "
                           "price_observations order by sku").fetchall()
    assert [(p, s, price, t.isoformat()) for p, s, price, t in rows] == [
        ("lambda", "gpu_1x_gh200", 2.29, "2025-02-03T04:05:06+00:00"),
        ("lambda", "gpu_8x_h100_sxm5", 31.92, "2025-02-03T04:05:06+00:00")]


def test_a_version_above_the_ingest_cap_is_refused_unread(git, tmp_path, monkeypatch, capsys):
    """A version larger than GPUCOST_INGEST_MAX_BYTES is one refused line (never kept); the
    next version reads and loads as usual, and a second run skips both."""
    fixture = (Path(__file__).resolve().parents[1] / "fixtures/skypilot/lambda_vms_tiny.csv"
               ).read_bytes()
    repo, data = tmp_path / "catalog", tmp_path / "data"
    make_repo(repo, [("lambda/vms.csv", fixture + b"\n" * 4096, "2025-02-03T00:00:00Z"),
                     ("lambda/vms.csv", fixture, "2025-02-04T00:00:00Z")])
    monkeypatch.setenv("GPUCOST_DATA_DIR", str(data))
    monkeypatch.setenv("GPUCOST_INGEST_MAX_BYTES", str(len(fixture) + 100))
    args = ["backfill", str(repo), "--path", "lambda/vms.csv", "--source", "skypilot",
            "--no-publish"]
    assert main(args) == EXIT_SOURCE_FAILED
    out = capsys.readouterr().out.splitlines()
    assert "2025-02-03 00:00 lambda/vms.csv: REFUSED PayloadTooLargeError" in out[0]
    assert f"is {len(fixture) + 4096} bytes, above the ingest cap" in out[0]
    assert "2025-02-04 00:00 lambda/vms.csv: 2 rows accepted, 1 refused" in out[1]
    assert not list((data / "raw").rglob("*.csv"))[1:]  # only the loaded version is kept
    assert main(args) == EXIT_OK
    assert "2 skipped as already backfilled" in capsys.readouterr().out
