"""Price alerts (issue 39 item 4; flows/alerts.py, `gpucost alerts`, docs/alerts.md).

The acceptance test replays two recorded SkyPilot-format Jarvislabs catalogs
(../shared/data/prices/skypilot_format/, read in place) through `gpucost ingest`'s path and
delivers through apprise to a loopback HTTP receiver. The recorded Lambda pair
(lambda_vms_2026-04-02.csv, lambda_vms_2026-05-07.csv) has no price that falls (all 15 changed
types rose, README), so it cannot cross a "below" threshold; the Jarvislabs pair has one.
Figures worked out by hand from the files (rows `8x_H100_192V_1600G`, region IN2, GPU H100,
count 8, which the aliases map to NVIDIA H100 PCIe 80GB; `8x_H200_224V_2400G`, H200, 8):

* jarvislabs_vms_57d6578.csv: H100 x8 27.92 USD/h = 3.49 USD/GPU-h; H200 x8 36.72 = 4.59.
* jarvislabs_vms_8f09711.csv: H100 x8 21.52 USD/h = 2.69 USD/GPU-h; H200 x8 31.92 = 3.99.

The files carry no date and which is older is not known (README: "use the pair to test
'price changed' ..., not to assert a direction"); the test dates them itself, 57d6578 on
2026-04-01 and 8f09711 on 2026-05-01 (the README's guess of the order). A rule "H100 PCIe x8
below 3.00" crosses (3.49 >= 3.00, then 2.69 < 3.00): one POST; "H200 x8 below 3.50" moves
(4.59 -> 3.99) but never crosses: no POST.
"""

from __future__ import annotations

import json
import os
import socket
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from gpucost.flows import alerts
from gpucost.flows.cli.main import main
from gpucost.flows.cli.output import EXIT_OK, EXIT_USAGE
from gpucost.flows.ingest import ingest_files
from tests.support.loopback import serve

JARVIS = "prices/skypilot_format/jarvislabs_vms_{}.csv"
APRIL = datetime(2026, 4, 1, tzinfo=UTC)
MAY = datetime(2026, 5, 1, tzinfo=UTC)


# -- redaction -----------------------------------------------------------------------------

@pytest.mark.parametrize(("url", "shown", "hidden"), [
    ("slack://T/B/secret-token", "slack://***", ["secret-token", "/B/"]),
    ("json://user:pass@host", "json://***@host", ["user", "pass"]),
    ("mailto://user:pass@gmail.com", "mailto://***@gmail.com", ["user:", "pass"]),
    ("https://hooks.example/x?token=abc", "https://hooks.example/***?token=***",
     ["abc", "/x"]),
    ("json://127.0.0.1:8080/", "json://127.0.0.1:8080/", []),
    ("discord://1234/webhook-token-value", "discord://***", ["webhook-token-value", "1234"]),
    ("not a url at all", "***", ["not a url"]),
])
def test_redact_url(url: str, shown: str, hidden: list[str]) -> None:
    got = alerts.redact_url(url)
    assert got == shown
    for secret in hidden:
        assert secret not in got


# -- the state file ------------------------------------------------------------------------

def test_state_written_atomically_0600_and_never_through_a_symlink(tmp_path: Path) -> None:
    data = tmp_path / "wh"
    data.mkdir()
    alerts.write_rules(data, [{"name": "a", "notify": "json://u:p@h/"}])
    path = data / "alerts.json"
    assert path.stat().st_mode & 0o777 == 0o600
    assert alerts.read_rules(data)[0]["name"] == "a"
    assert not list(data.glob(".alerts.json.tmp-*"))
    # a planted symlink at alerts.json: reading refuses it, writing replaces the link itself
    target = tmp_path / "elsewhere.json"
    target.write_text("precious")
    path.unlink()
    path.symlink_to(target)
    with pytest.raises(alerts.AlertStateError, match="symlink"):
        alerts.read_rules(data)
    alerts.write_rules(data, [])
    assert target.read_text() == "precious"
    assert not path.is_symlink() and alerts.read_rules(data) == []
    # a planted symlink at the temporary name is never written through either
    tmp = data / f".alerts.json.tmp-{os.getpid()}"
    tmp.symlink_to(target)
    alerts.write_rules(data, [{"name": "b"}])
    assert target.read_text() == "precious"
    assert [r["name"] for r in alerts.read_rules(data)] == ["b"]
    (data / "alerts.json").write_text("{not json")
    with pytest.raises(alerts.AlertStateError, match="not a gpucost alerts file"):
        alerts.read_rules(data)


def test_no_rules_no_work(tmp_path: Path) -> None:
    assert alerts.evaluate_after_publish(tmp_path) == []
    assert not (tmp_path / "alerts.json").exists()


# -- against recorded data -----------------------------------------------------------------

class Receiver:
    """The JSON bodies POSTed to a loopback server, by path."""

    def __init__(self) -> None:
        self.posts: list[tuple[str, dict]] = []

    def __call__(self, method: str, path: str, body: bytes, headers: dict) -> tuple:
        if method == "POST":
            self.posts.append((path, json.loads(body)))
        return 200, {"Content-Type": "application/json"}, b"{}"


@pytest.fixture
def receiver() -> Iterator[tuple[Receiver, str]]:
    got = Receiver()
    with serve(got) as base:  # http://127.0.0.1:<free port>, a thread per connection
        yield got, base.replace("http://", "json://")


@pytest.fixture
def april(shared_data: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A warehouse with the 57d6578 Jarvislabs catalog, observed 2026-04-01."""
    data = tmp_path / "wh"
    monkeypatch.setenv("GPUCOST_DATA_DIR", str(data))
    ingest_files("skypilot", [shared_data / JARVIS.format("57d6578")], observed_at=APRIL,
                 data_dir=data)
    return data


def _ingest_may(shared_data: Path, data: Path):  # type: ignore[no-untyped-def]
    return ingest_files("skypilot", [shared_data / JARVIS.format("8f09711")],
                        observed_at=MAY, data_dir=data)[1]


def test_an_ingest_that_crosses_notifies_once(april: Path, shared_data: Path, receiver,
                                             capsys) -> None:
    got, base = receiver
    assert main(["alerts", "add", "h100", "--gpu", "H100 PCIe:8", "--below", "3",
                 "--notify", f"{base}/h100"]) == EXIT_OK
    out = capsys.readouterr().out
    assert "cheapest now 3.49 USD/GPU-h (jarvislabs 8x_H100_192V_1600G)" in out
    assert main(["alerts", "add", "h200", "--gpu", "nvidia-h200-sxm-141gb:8", "--below",
                 "3.5", "--notify", f"{base}/h200"]) == EXIT_OK
    assert "cheapest now 4.59" in capsys.readouterr().out

    published = _ingest_may(shared_data, april)  # H100 x8 3.49 -> 2.69: crosses 3.00
    assert [path for path, _ in got.posts] == ["/h100"]  # H200 4.59 -> 3.99: no crossing
    body = got.posts[0][1]
    assert body["title"] == ("gpucost alert h100: NVIDIA H100 PCIe 80GB x8 on_demand at 2.69 "
                             "USD/GPU-h, below 3")
    message = body["message"]
    for expected in ("accelerator: NVIDIA H100 PCIe 80GB (nvidia-h100-pcie-80gb)",
                     "GPU count: 8", "seller: jarvislabs", "sku: 8x_H100_192V_1600G",
                     "new price: 2.69 USD/GPU-h (21.52 USD/h per instance)",
                     "previous price: 3.49 USD/GPU-h",
                     "source URL: https://raw.githubusercontent.com/skypilot-org/"
                     "skypilot-catalog/master/catalogs/v8"):
        assert expected in message
    assert len(published.alerts) == 1 and "h100" in published.alerts[0] \
        and "notified json://127.0.0.1:" in published.alerts[0]

    # the price stays below: the next publish sends nothing
    again = _ingest_may(shared_data, april)
    assert len(got.posts) == 1 and again.alerts == []
    # a rule added while the price is already below takes it as its baseline: nothing sent
    assert main(["alerts", "add", "late", "--gpu", "H100 PCIe:8", "--below", "3",
                 "--notify", f"{base}/late"]) == EXIT_OK
    assert "already below" in capsys.readouterr().out
    _ingest_may(shared_data, april)
    assert len(got.posts) == 1
    # the state says which rule is below
    assert main(["alerts", "list", "--format", "json"]) == EXIT_OK
    listed = {r["name"]: r for r in json.loads(capsys.readouterr().out)}
    assert listed["h100"]["state"] == "below" and listed["h100"]["notified_at"]
    assert listed["h200"]["state"] == "at or above"
    assert listed["h200"]["last_price_per_gpu_hour"] == pytest.approx(3.99)


def test_back_above_then_below_again_notifies_again(
        april: Path, shared_data: Path, receiver, monkeypatch: pytest.MonkeyPatch) -> None:
    """Once per crossing: below (notified), back above (reset), below again (notified). The
    URL comes from the environment (--notify env:NAME): alerts.json never holds it."""
    got, base = receiver
    url = base.replace("json://", "json://alice:s3cr3tpass@") + "/x"
    monkeypatch.setenv("GPUCOST_TEST_ALERT_URL", url)
    alerts.add_rule(april, name="h100", gpu="H100 PCIe:8", below=3.0,
                    notify="env:GPUCOST_TEST_ALERT_URL")
    assert alerts.redact_url("env:GPUCOST_TEST_ALERT_URL") == "env:GPUCOST_TEST_ALERT_URL"
    _ingest_may(shared_data, april)
    assert len(got.posts) == 1
    assert "s3cr3tpass" not in (april / "alerts.json").read_text()
    rules = alerts.read_rules(april)
    rules[0]["below"] = 2.5  # 2.69 >= 2.5: the next evaluation sees it back above
    alerts.write_rules(april, rules)
    assert alerts.evaluate(april) == [] and len(got.posts) == 1
    rules = alerts.read_rules(april)
    rules[0]["below"] = 3.0  # and below again: a second crossing
    alerts.write_rules(april, rules)
    [line] = alerts.evaluate(april)
    assert "notified" in line and len(got.posts) == 2
    assert "previous price: 2.69 USD/GPU-h" in got.posts[1][1]["message"]


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])  # closed when the block ends: nothing listens


def test_failed_delivery_is_one_line_and_the_publish_stands(
        april: Path, shared_data: Path, capsys, caplog) -> None:
    port = _closed_port()
    url = f"json://watcher:hunter2secret@127.0.0.1:{port}/hook?token=abcdef123"
    assert main(["alerts", "add", "h100", "--gpu", "H100 PCIe:8", "--below", "3",
                 "--notify", url]) == EXIT_OK
    capsys.readouterr()
    caplog.set_level("DEBUG")
    code = main(["ingest", "skypilot", str(shared_data / JARVIS.format("8f09711")),
                 "--observed-at", "2026-05-01"])
    assert code == EXIT_OK  # published
    captured = capsys.readouterr()
    lines = [line for line in captured.out.splitlines() if line.startswith("alert ")]
    assert lines == [f"alert h100: delivery to json://***@127.0.0.1:{port}/***?token=*** "
                     f"failed ({lines[0].split('failed (', 1)[1]}"]
    assert "published" in captured.out
    for secret in ("hunter2secret", "abcdef123", "watcher"):
        assert secret not in captured.out + captured.err
        assert secret not in caplog.text
    rule = alerts.read_rules(april)[0]
    assert rule["is_below"] and rule["pending"]  # retried at the next publish
    # alerts list shows the URL redacted too
    assert main(["alerts", "list"]) == EXIT_OK
    shown = capsys.readouterr().out
    assert "below, delivery pending" in shown and "hunter2secret" not in shown
    assert "abcdef123" not in shown


def test_cli_usage_errors(april: Path, capsys) -> None:
    assert main(["alerts", "add", "x", "--gpu", "H100", "--below", "3",
                 "--notify", "json://127.0.0.1:9/"]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "ambiguous accelerator 'H100'" in err and "nvidia-h100-pcie-80gb" in err \
        and "nvidia-h100-sxm5-80gb" in err
    assert main(["alerts", "add", "x", "--gpu", "H100 PCIe", "--below", "3",
                 "--notify", "nosuchscheme://user:topsecret@x/"]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "topsecret" not in err and "nosuchscheme://***" in err
    with pytest.raises(SystemExit) as exc:
        main(["alerts", "add", "x", "--gpu", "H100 PCIe", "--below", "nan",
              "--notify", "json://127.0.0.1:9/"])
    assert exc.value.code == EXIT_USAGE
    assert main(["alerts", "add", "bad name!", "--gpu", "H100 PCIe", "--below", "3",
                 "--notify", "json://127.0.0.1:9/"]) == EXIT_USAGE
    assert main(["alerts", "add", "ok", "--gpu", "H100 PCIe", "--below", "3",
                 "--notify", "json://127.0.0.1:9/"]) == EXIT_OK
    assert main(["alerts", "add", "ok", "--gpu", "H100 PCIe", "--below", "3",
                 "--notify", "json://127.0.0.1:9/"]) == EXIT_USAGE  # exists
    assert main(["alerts", "add", "env", "--gpu", "H100 PCIe", "--below", "3",
                 "--notify", "env:GPUCOST_NO_SUCH_VARIABLE"]) == EXIT_USAGE
    assert "GPUCOST_NO_SUCH_VARIABLE is not set" in capsys.readouterr().err
    assert main(["alerts", "remove", "nope"]) == EXIT_USAGE
    assert main(["alerts", "remove", "ok"]) == EXIT_OK
    capsys.readouterr()
    assert main(["alerts", "list"]) == EXIT_OK
    assert "no alert rules" in capsys.readouterr().out


def test_refresh_carries_and_prints_the_alert_lines(tmp_path: Path) -> None:
    """The refresh sequence (Prefect or not) passes the publish's alert lines to its summary,
    and `gpucost refresh` prints them after the publish line."""
    import io

    from gpucost.flows.cli.refresh import _print_summary
    from gpucost.flows.steps import PublishResult, run_refresh

    line = "alert h100: delivery to json://***@127.0.0.1:9/ failed (refused)"
    summary = run_refresh([], lambda names, on_fetched: {}, tmp_path,
                          publish_step=lambda data_dir: PublishResult(alerts=[line]))
    assert summary.published and summary.alerts == [line]
    out = io.StringIO()
    _print_summary(summary, out=out)
    assert line in out.getvalue().splitlines()
