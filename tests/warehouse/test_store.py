"""The raw layer: verbatim payloads, idempotent loads, the row-count guard, failures kept."""

from datetime import UTC, datetime

import pytest

from gpucost.catalog.records import ParseResult, Payload, PriceObservation, RowCountCollapseError
from gpucost.warehouse.store import RawStore

T0 = datetime(2026, 5, 1, tzinfo=UTC)
T1 = datetime(2026, 5, 2, tzinfo=UTC)


def _result(n: int, stream: str = "s") -> ParseResult:
    return ParseResult(stream=stream, prices=[
        PriceObservation(provider="p", sku=f"sku{i}", region="r", pricing_model="on_demand",
                         price_per_hour=1.0 + i, gpu_name_raw="H100", gpu_count=1)
        for i in range(n)
    ])


def _load(store, con, payload, result, when=T0, mode="replay", force=False):
    saved = store.save_payload("src", payload, when)
    return store.load(con, run_id="r", source="src", mode=mode, payload=payload, saved=saved,
                      result=result, started_at=when, finished_at=when, observed_at=when,
                      force=force)


def test_payload_saved_verbatim_and_content_addressed(tmp_path):
    store = RawStore(tmp_path)
    payload = Payload(name="a.json", content=b'{"x": 1}', ext="json")
    saved = store.save_payload("src", payload, T0)
    again = store.save_payload("src", payload, T0)
    assert saved == again
    path = tmp_path / saved.relpath
    assert path.read_bytes() == b'{"x": 1}'
    assert saved.relpath.startswith("raw/src/2026-05-01/") and path.name == f"{saved.sha256}.json"


def test_loading_the_same_payload_twice_adds_nothing(tmp_path):
    store = RawStore(tmp_path)
    payload = Payload(name="a.csv", content=b"abc", ext="csv")
    with store.connect() as con:
        first = _load(store, con, payload, _result(3))
        second = _load(store, con, payload, _result(3), when=T1)
        n = con.execute("select count(*) from price_observations").fetchone()[0]
        statuses = [r[0] for r in con.execute("select status from fetches order by fetch_id")
                    .fetchall()]
    assert (first.status, first.rows_loaded) == ("replayed", 3)
    assert second.status == "unchanged"
    assert n == 3
    assert statuses == ["replayed", "unchanged"]


def test_row_count_collapse_is_refused_and_last_good_stays(tmp_path):
    store = RawStore(tmp_path)
    with store.connect() as con:
        _load(store, con, Payload(name="a", content=b"1"), _result(10), mode="live")
        out = _load(store, con, Payload(name="b", content=b"2"), _result(2), when=T1,
                    mode="live")
        n = con.execute("select count(*) from price_observations").fetchone()[0]
        err = con.execute("select error_type from fetches where status = 'failed'").fetchone()[0]
        # another stream is compared only with itself
        other = _load(store, con, Payload(name="c", content=b"3"), _result(1, stream="t"),
                      mode="live")
        # a replay that would become the newest payload of the stream is guarded too (a
        # truncated replay once replaced a stream: Epoch 1,324 rows in force fell to 704) ...
        replay = _load(store, con, Payload(name="d", content=b"4"), _result(2), when=T1)
        # ... an older one is history and displaces nothing: loaded ...
        older = _load(store, con, Payload(name="e", content=b"5"), _result(2),
                      when=T0.replace(day=1, month=1))
        # ... and --force is the operator's explicit decision
        forced = _load(store, con, Payload(name="d", content=b"4"), _result(2), when=T1,
                       force=True)
    assert out.status == "failed" and out.error_type == RowCountCollapseError.__name__
    assert replay.status == "failed" and replay.error_type == RowCountCollapseError.__name__
    assert "`ingest --force` loads it anyway" in replay.error
    assert older.status == "replayed" and forced.status == "replayed"
    assert err == "RowCountCollapseError"
    assert n == 10
    assert other.status == "ok"


def test_failure_is_recorded_with_its_named_error(tmp_path):
    store = RawStore(tmp_path)
    with store.connect() as con:
        out = store.record_failure(con, run_id="r", source="src", mode="live", started_at=T0,
                                   finished_at=T0, error=ValueError("boom"), url="http://x")
        row = con.execute("select status, error_type, error, url from fetches").fetchone()
    assert out.status == "failed"
    assert row == ("failed", "ValueError", "boom", "http://x")


def test_unknown_pricing_model_is_refused_at_the_record():
    with pytest.raises(ValueError):
        PriceObservation(provider="p", sku="s", region="", pricing_model="free",
                         price_per_hour=1.0, gpu_name_raw=None, gpu_count=None)


def test_unknown_price_kind_is_refused_at_the_record():
    with pytest.raises(ValueError, match="price_kind"):
        PriceObservation(provider="p", sku="s", region="", pricing_model="on_demand",
                         price_per_hour=1.0, gpu_name_raw=None, gpu_count=None,
                         price_kind="per_gpu")


def test_price_kind_is_stored(tmp_path):
    """What a price buys is kept in raw.price_observations (default: a whole instance)."""
    store = RawStore(tmp_path)
    result = _result(2)
    result.prices[1] = PriceObservation(
        provider="oracle", sku="BM.GPU.MI355X.8", region="", pricing_model="on_demand",
        price_per_hour=68.8, gpu_name_raw="MI355X", gpu_count=8, price_kind="shape_per_gpu")
    with store.connect() as con:
        _load(store, con, Payload(name="k.json", content=b"k", ext="json"), result)
        rows = con.execute("select sku, price_kind from price_observations order by sku"
                           ).fetchall()
    assert rows == [("BM.GPU.MI355X.8", "shape_per_gpu"), ("sku0", "instance")]
