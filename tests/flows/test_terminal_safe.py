"""Terminal-safe output (issue 27, item 5): remote bytes in a value or an error text never reach
the operator's terminal raw. A SkyPilot catalog in its documented shape whose sku, region and
GPU name hold a screen clear (ESC [2J), a window-title OSC ending in BEL, CR, a one-byte CSI
(U+009B), a right-to-left override (U+202E) and a LF is ingested with `gpucost ingest`; every
human-readable output shows them escaped (`\\x1b`, `\\r`, `\\n`, `\\u202e`) and never as a fake
row; JSON and CSV keep the data exact; the HTML report neutralises the override."""

from __future__ import annotations

import csv
import io
import json
import logging
from pathlib import Path

import pytest

from gpucost.flows.cli import terminal
from gpucost.flows.cli.main import main
from gpucost.flows.cli.output import EXIT_OK, EXIT_SOURCE_FAILED, EXIT_USAGE

HOSTILE = "\x1b[2J\x1b]0;pwned\x07\r\x9b\u202e"
RAW = ("\x1b", "\x07", "\r", "\x9b", "\u202e")  # none may reach a terminal
SKU = f"gpu_8x_h100{HOSTILE}\nfake row"
REGION = f"us-east-1{HOSTILE}"
GPU_NAME = f"H100{HOSTILE}X"  # maps to no accelerator: listed under the offers (unmapped)
GPU_INFO = ("{'Gpus': [{'Name': 'H100', 'Manufacturer': 'NVIDIA', 'Count': 8.0, "
            "'MemoryInfo': {'SizeInMiB': 81920}}], 'TotalGpuMemoryInMiB': 81920}")


def hostile_catalog(path: Path) -> Path:
    """A SkyPilot Lambda catalog (catalogs/v8/lambda/vms.csv columns) with hostile names."""
    rows = [["InstanceType", "AcceleratorName", "AcceleratorCount", "vCPUs", "MemoryGiB",
             "Price", "Region", "GpuInfo", "SpotPrice"],
            [SKU, "H100 SXM", "8.0", "208.0", "1800.0", "31.92", REGION, GPU_INFO, ""],
            ["gpu_1x_evil", GPU_NAME, "1.0", "30.0", "200.0", "2.5", "us-west-1", "", ""]]
    with path.open("w", newline="", encoding="utf-8") as fh:
        csv.writer(fh).writerows(rows)
    return path


def assert_terminal_safe(text: str) -> None:
    for char in RAW:
        assert char not in text, f"raw {char!r} in {text!r}"


@pytest.fixture(scope="module")
def hostile_wh(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A published warehouse holding the hostile catalog, loaded by `gpucost ingest`."""
    tmp = tmp_path_factory.mktemp("hostile-terminal")
    data = tmp / "wh"
    payload = hostile_catalog(tmp / "lambda_vms.csv")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("GPUCOST_DATA_DIR", str(data))
        out = io.StringIO()
        mp.setattr("sys.stdout", out)
        code = main(["ingest", "skypilot", str(payload), "--observed-at", "2026-03-01"])
    assert code == EXIT_OK, out.getvalue()
    assert_terminal_safe(out.getvalue())
    return data


@pytest.fixture
def published(hostile_wh: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("GPUCOST_DATA_DIR", str(hostile_wh))
    return hostile_wh


# ---- the module -------------------------------------------------------------------------
def test_safe_escapes_every_control_and_bidi_character():
    assert terminal.safe(SKU) == ("gpu_8x_h100\\x1b[2J\\x1b]0;pwned\\x07\\r\\x9b\\u202e"
                                  "\\nfake row")
    assert terminal.safe("a\tb\x00\x7f\u2066\u2069\u200f\u2028") == \
        "a\\tb\\x00\\x7f\\u2066\\u2069\\u200f\\u2028"
    assert terminal.safe(None) == "" and terminal.safe(3.5) == "3.5"
    assert terminal.safe("H100 SXM5 80GB, üñí €") == "H100 SXM5 80GB, üñí €"  # text stays


def test_safe_lines_keeps_the_line_breaks_only():
    assert terminal.safe_lines("one\r\ntwo\x1b[2J\n") == "one\\r\ntwo\\x1b[2J\n"
    assert terminal.one_line("a\n  b\x1b]0;x\x07") == "a b\\x1b]0;x\\x07"


def test_the_stream_net_escapes_what_a_printer_forgot():
    out = io.StringIO()
    stream = terminal.SafeStream(out)
    print(f"value {HOSTILE}", file=stream)
    assert out.getvalue() == "value \\x1b[2J\\x1b]0;pwned\\x07\\r\\x9b\\u202e\n"


def test_a_log_line_quoting_remote_bytes_is_one_escaped_line():
    from gpucost.flows.progress import ConsoleLogHandler, console_for

    out = io.StringIO()
    handler = ConsoleLogHandler(console_for(out))
    record = logging.LogRecord("gpucost", logging.WARNING, __file__, 1,
                               "source failed: %s", (f"HTTP 500 {HOSTILE}\nwarning: fake",),
                               None)
    handler.emit(record)
    text = out.getvalue()
    assert_terminal_safe(text)
    assert text.count("\n") == 1 and "\\nwarning: fake" in text


# ---- ingest, offers, sql, explain, estimate, sources, report -----------------------------
def test_ingest_prints_a_refused_files_hostile_header_escaped(tmp_path, capsys, monkeypatch):
    """A refused file's error quotes its header (remote bytes): shown escaped."""
    monkeypatch.setenv("GPUCOST_DATA_DIR", str(tmp_path / "wh"))
    bad = tmp_path / "lambda_vms_2026-03-01.csv"
    bad.write_bytes(b"Inst\x1b]0;pwned\x07ance\xc2\x9b\xe2\x80\xaeType,AcceleratorName\n"
                    b"foo,bar\n")
    assert main(["ingest", "skypilot", str(bad), "--no-publish"]) == EXIT_SOURCE_FAILED
    out, err = capsys.readouterr()
    assert_terminal_safe(out + err)
    assert "REFUSED ParseError" in out and "Inst\\x1b]0;pwned\\x07ance\\x9b\\u202eType" in out


def test_offers_table_shows_hostile_values_escaped_and_no_fake_row(published, capsys):
    assert main(["offers", "H100"]) == EXIT_OK
    out, err = capsys.readouterr()
    assert_terminal_safe(out + err)
    assert terminal.safe(SKU) in out and terminal.safe(REGION) in out
    assert not any(line.startswith("fake row") for line in out.splitlines())
    assert f"named {terminal.safe(GPU_NAME)} could not be mapped" in out  # unmapped line
    assert len(out.splitlines()) == 4  # header, the one offer, footer, the unmapped line


def test_offers_json_and_csv_keep_the_data_exact(published, capsys):
    assert main(["offers", "H100", "--format", "json"]) == EXIT_OK
    out = capsys.readouterr().out
    assert_terminal_safe(out)  # json.dumps escapes them (\\u001b)
    [row] = json.loads(out)
    assert (row["sku"], row["region"]) == (SKU, REGION)
    assert main(["offers", "H100", "--format", "csv"]) == EXIT_OK
    [row] = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert (row["sku"], row["region"]) == (SKU, REGION)


def test_sql_table_escapes_and_json_csv_keep_the_data_exact(published, capsys):
    query = "select sku, region from gpu_offers where source = 'skypilot' order by sku desc"
    assert main(["sql", query]) == EXIT_OK
    out, err = capsys.readouterr()
    assert_terminal_safe(out + err)
    assert terminal.safe(SKU) in out
    assert not any(line.startswith("fake row") for line in out.splitlines())
    assert main(["sql", query, "--format", "json"]) == EXIT_OK
    assert json.loads(capsys.readouterr().out)[0] == {"sku": SKU, "region": REGION}
    assert main(["sql", query, "--format", "csv"]) == EXIT_OK
    assert list(csv.reader(io.StringIO(capsys.readouterr().out)))[1] == [SKU, REGION]
    # an error quoting the query's hostile text: one escaped line on stderr
    assert main(["sql", "select * from \"no\x1b]0;pwned\x07table\""]) == 1
    err = capsys.readouterr().err
    assert_terminal_safe(err) and err.count("\n") == 1


def test_explain_estimate_sources_tables_are_terminal_safe(published, capsys):
    main(["offers", "H100", "--format", "json"])
    fetch_id = json.loads(capsys.readouterr().out)[0]["fetch_id"]
    assert main(["explain", "fetch", str(fetch_id)]) == EXIT_OK
    out = capsys.readouterr().out
    assert_terminal_safe(out) and terminal.safe(SKU) in out
    main(["estimate", "--params", "7e9", "--tokens", "1e12", "-a", "H100 SXM"])
    main(["sources"])
    main(["tables"])
    out, err = capsys.readouterr()
    assert_terminal_safe(out + err)


def test_the_report_neutralises_bidi_overrides_and_controls(published, tmp_path, capsys):
    out = tmp_path / "report.html"
    assert main(["report", "-o", str(out)]) == EXIT_OK
    capsys.readouterr()
    html = out.read_text(encoding="utf-8")
    for char in ("\x1b", "\x07", "\r", "\x9b", "\u202e", "\u2066"):
        assert char not in html
    assert "\\u202e" in html  # shown as its escape, visibly
    from gpucost.flows.cli.report.svg import esc

    assert esc(f"<b>{HOSTILE}</b>") == ("&lt;b&gt;\\x1b[2J\\x1b]0;pwned\\x07\\r\\x9b\\u202e"
                                        "&lt;/b&gt;")


# ---- refresh and the CLI's one-line errors -----------------------------------------------
def test_refresh_prints_errors_quoting_a_hostile_header_and_body_escaped(server, tmp_path,
                                                                          monkeypatch, capfd):
    """Two sources at a loopback server. Lambda answers with a redirect whose Location names a
    host full of escape sequences: the refusal (OffHostLinkError) quotes it. SkyPilot's Lambda
    catalog has a header full of them: the refusal (ParseError) quotes it. `refresh` (short
    and --verbose) and `sources` show both escaped, on one line each."""
    # U+009B and U+202E as UTF-8 bytes, and no "[" or "]" in the host: requests decodes a
    # Location as UTF-8 and parses it before it is refused (a bare 0x9b byte or a bracket in
    # the host crash the fetch there: a catalog/http.py bug of its own, reported)
    location = ("http://evil\x1bc\x07\xc2\x9b2J\xe2\x80\xae.example/"
                "\x1b]0;pwned\x07/pricing")
    header = (b"Inst\x1b[2J\x1b]0;pwned\x07ance\xc2\x9b\xe2\x80\xaeType,AcceleratorName\r"
              b"fake row: gpu_8x_h100 0.01 USD\n")

    def route(path: str):  # type: ignore[no-untyped-def]
        if path.startswith("/lambda/pricing"):
            return 302, {"Location": location}, b""
        if path == "/sky/lambda/vms.csv":
            return 200, {"Content-Type": "text/csv"}, header + b"foo,bar\n"
        return 404, {}, b""

    server.route = route
    monkeypatch.setenv("GPUCOST_DATA_DIR", str(tmp_path / "wh"))
    monkeypatch.setenv("GPUCOST_SOURCE_URL_LAMBDA", f"{server.base}/lambda/pricing")
    monkeypatch.setenv("GPUCOST_SOURCE_URL_SKYPILOT", f"{server.base}/sky")
    argv = ["refresh", "--no-prefect", "--source", "lambda", "--source", "skypilot"]
    assert main(argv) == EXIT_OK
    out, err = capfd.readouterr()
    assert_terminal_safe(out + err)
    assert "OffHostLinkError" in out and "ParseError" in out  # the texts cut short
    assert not any(line.startswith("fake row") for line in out.splitlines())
    assert main([*argv, "--verbose"]) == EXIT_OK  # full error texts, warnings on stderr
    out, err = capfd.readouterr()
    assert_terminal_safe(out + err)
    assert "evil\\x1bc\\x07\\xc2\\x9b2J" not in out  # (Â is a letter: kept)
    assert "evil\\x1bc\\x07\u00c2\\x9b2J" in out
    assert "Inst\\x1b[2J\\x1b]0;pwned\\x07ance\\x9b\\u202eType" in out
    assert not any(line.startswith("fake row") for line in (out + err).splitlines())
    assert main(["sources"]) == EXIT_OK
    out, err = capfd.readouterr()
    assert_terminal_safe(out + err)
    assert "OffHostLinkError" in out  # each source's last error, cut short


def test_a_cli_error_quoting_hostile_text_is_one_escaped_line(tmp_path, capsys):
    assert main(["refresh", "--no-prefect", "--source", f"evil{HOSTILE}\nerror: fake"]) \
        == EXIT_USAGE
    err = capsys.readouterr().err
    assert_terminal_safe(err)
    assert err.count("\n") == 1 and err.startswith("error: ")
    assert main(["ingest", "lambda", str(tmp_path / f"no{HOSTILE}.html")]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert_terminal_safe(err) and err.count("\n") == 1
