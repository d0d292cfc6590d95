"""The plausibility gates (warehouse/gates.py): per-accelerator price band and 5x jump, as pure
functions and through the loader (the refused rows land in raw.rejects with their reason)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from gpucost.catalog.records import ParseResult, Payload, PriceObservation
from gpucost.warehouse import gates
from gpucost.warehouse.gates import Gates, band_of, jump_rejects, per_gpu_price
from gpucost.warehouse.store import RawStore

T0 = datetime(2026, 3, 1, tzinfo=UTC)


def _obs(price: float | None, *, sku: str = "p5.48xlarge", count: float | None = 8.0,
         provider: str = "aws", gpu: str | None = "H100", currency: str = "USD",
         when: datetime | None = None) -> PriceObservation:
    return PriceObservation(provider=provider, sku=sku, region="us-east-1",
                            pricing_model="on_demand", price_per_hour=price, gpu_name_raw=gpu,
                            gpu_count=count, currency=currency, observed_at=when)


@pytest.fixture(scope="module")
def catalog_gates() -> Gates:
    return Gates.from_catalog()


def test_mapping_follows_the_alias_precedence(catalog_gates: Gates) -> None:
    acc = catalog_gates.accelerator_of
    assert acc("aws", "p5.48xlarge", "H100") == "nvidia-h100-sxm5-80gb"  # sku alias (provider)
    assert acc("gcp", "a3-highgpu-8g", "H100") == "nvidia-h100-sxm5-80gb"  # gpu_name (provider)
    assert acc("vast", "1x H100 SXM", "H100 SXM") == "nvidia-h100-sxm5-80gb"
    assert acc("runpod", "X", "NVIDIA H100 80GB HBM3") == "nvidia-h100-sxm5-80gb"  # any provider
    assert acc("vast", "1x H100", "H100") is None  # ambiguous bare name stays unmapped
    assert acc("AWS ", "P5.48XLARGE", None) == "nvidia-h100-sxm5-80gb"  # keys are normalised


def test_bands(catalog_gates: Gates) -> None:
    assert band_of(25000) == (0.25, 250.0)
    assert band_of(None) == gates.FALLBACK_BAND
    assert catalog_gates.bands["nvidia-h100-sxm5-80gb"] == band_of(25000)
    assert catalog_gates.bands["google-tpu-v6e"] == gates.FALLBACK_BAND
    assert per_gpu_price(_obs(80.0)) == 10.0
    assert per_gpu_price(_obs(1.0, count=0.5)) is None


def test_band_gate(catalog_gates: Gates) -> None:
    rows = [
        _obs(55.04),                                    # 6.88 per GPU: fine
        _obs(5504.0),                                   # cents for dollars: 688 per GPU
        _obs(0.8),                                      # 0.10 per GPU: below 25000 / 100000 h
        _obs(700.0, provider="gcp", sku="tpu-v6e-1", gpu="tpu-v6e-1", count=1.0),  # placeholder
        _obs(5504.0, currency="CNY"),                   # not USD: not band-checked
        _obs(900.0, count=0.125, sku="g6f.large", gpu="L4"),  # fractional: instance cap only
        _obs(900.0, provider="vast", sku="1x Z 9000", gpu="Z 9000", count=1.0),  # unmapped (the
        # GTX 1080 of this example until issue 37 is catalogued now)
        _obs(float("inf")),                              # Infinity: never a price
        _obs(float("nan"), currency="CNY"),              # NaN in any currency
        _obs(1e308, provider="vast", sku="1x X", gpu="Mystery GPU", count=1.0),  # unmapped
        _obs(1e6, count=0.5, sku="g6f.xlarge", gpu="L4"),  # fractional, above the cap
    ]
    kept, refused = catalog_gates.band_rejects(rows)
    assert kept == [rows[0], rows[4], rows[5]]
    assert [r.reason for r in refused] == ["price_out_of_band"] * 4 + ["price_not_finite"] * 2 \
        + ["price_out_of_band"] * 2
    assert "688 USD per GPU-hour outside [0.25, 250] for nvidia-h100-sxm5-80gb" in \
        refused[0].detail
    assert "google-tpu-v6e" in refused[2].detail and "sku=tpu-v6e-1" in refused[2].raw_row
    # an unmapped GPU is held to the generic band (was: never band-checked, so 1e308 passed)
    assert "900 USD per GPU-hour outside [0.01, 100] for an unmapped GPU" in refused[3].detail
    assert "1e+308 USD per GPU-hour" in refused[6].detail
    assert "without a whole GPU count" in refused[7].detail


def test_jump_gate_is_sequential_and_skips_refused_rows() -> None:
    rows = [_obs(10.0, when=T0.replace(day=d)) for d in (2, 3, 4, 5)]
    rows[1] = _obs(100.0, when=T0.replace(day=3))  # 10x the day before: refused
    rows[3] = _obs(2.1, when=T0.replace(day=5))     # 0.21x of day 4 (10.0): fine
    prior = {0: (T0, 9.0)}  # what the rollup held before the first row
    kept, refused = jump_rejects("aws", rows, T0.replace(day=5), prior)
    assert [o.price_per_hour for o in kept] == [10.0, 10.0, 2.1]
    assert len(refused) == 1 and refused[0].reason == "price_jump"
    assert "10 -> 100 (10x)" in refused[0].detail
    # the other way: a fall below a fifth
    _, refused = jump_rejects("aws", [_obs(1.0)], T0, {0: (T0.replace(month=2), 5.5)})
    assert [r.reason for r in refused] == ["price_jump"]


def _load(store: RawStore, con, name: str, prices: list[PriceObservation], when: datetime):
    payload = Payload(name=name, content=(name + repr(prices)).encode())
    saved = store.save_payload("aws", payload, when)
    return store.load(con, run_id="r", source="aws", mode="live", payload=payload, saved=saved,
                      result=ParseResult(stream="us-east-1", prices=prices), started_at=when,
                      finished_at=when, observed_at=when)


def test_gates_in_the_loader(tmp_path: Path, catalog_gates: Gates) -> None:
    store = RawStore(tmp_path, gates=catalog_gates)
    g5 = dict(sku="g5.xlarge", gpu="A10G", count=1.0)
    with store.connect() as con:
        first = _load(store, con, "d1", [_obs(55.04), _obs(1.006, **g5)], T0)
        second = _load(store, con, "d2", [_obs(550.4), _obs(1.01, **g5)], T0.replace(day=2))
        third = _load(store, con, "d3", [_obs(55.04), _obs(1.01, **g5)], T0.replace(day=3))
        rejects = con.execute("select fetch_id, reason, detail from rejects "
                              "order by fetch_id").fetchall()
        loaded = con.execute("select fetch_id, price_per_hour from price_observations "
                             "where sku = 'p5.48xlarge' order by fetch_id").fetchall()
        fetch = con.execute("select rows_loaded, rows_rejected from fetches where fetch_id = ?",
                            [second.fetch_id]).fetchone()
    assert (first.rows_loaded, second.rows_loaded, third.rows_loaded) == (2, 1, 2)
    assert fetch == (1, 1)
    assert [(f, r) for f, r, _ in rejects] == [(second.fetch_id, "price_jump")]
    assert "55.04 -> 550.4" in rejects[0][2]
    # the refused price never became the 'previous' one: day 3 compares with day 1
    assert loaded == [(first.fetch_id, 55.04), (third.fetch_id, 55.04)]


def test_count_gate_refuses_impossible_gpu_counts(catalog_gates: Gates) -> None:
    """Issue 27, item 6: an Infinity count once raised OverflowError in per_gpu_price and
    refused the whole payload; 0, -1 and 1.5 were published. Each is now its row's reject."""
    inf, nan = float("inf"), float("nan")
    rows = [
        _obs(55.04),                                                      # 8 H100: fine
        _obs(1.0, count=inf), _obs(1.0, count=nan), _obs(1.0, count=0.0),
        _obs(1.0, count=-1.0), _obs(1.0, count=1.5),
        _obs(1.0, provider="lambda", sku="gpu_1x_a10", gpu="A10", count=0.5),  # no slices
        _obs(1.6, provider="azure", sku="Standard_NV12ads_A10_v5", gpu="A10",
             count=1 / 3),                                                # a slice: kept
        _obs(3.5, provider="azure", sku="Standard_NC_unknown", gpu=None, count=None),  # unknown
    ]
    kept, refused = catalog_gates.band_rejects(rows)
    assert kept == [rows[0], rows[7], rows[8]]
    assert [r.reason for r in refused] == ["gpu_count_invalid"] * 6
    details = [r.detail for r in refused]
    assert "GPU count inf is not finite" in details[0] and "nan is not finite" in details[1]
    assert "0 is not above zero" in details[2] and "-1 is not above zero" in details[3]
    assert "1.5 is not a whole number" in details[4]
    assert "lambda sells no slice of a GPU" in details[5]
    assert "gpu_count=inf" in refused[0].raw_row
    assert per_gpu_price(_obs(1.0, count=inf)) is None  # never OverflowError


def test_count_gate_in_the_loader_keeps_the_other_rows(tmp_path: Path,
                                                       catalog_gates: Gates) -> None:
    """A payload whose parser let an Infinity count through loads its other rows."""
    store = RawStore(tmp_path, gates=catalog_gates)
    with store.connect() as con:
        outcome = _load(store, con, "d1", [_obs(55.04), _obs(55.04, sku="p5x", count=float(
            "inf")), _obs(55.04, sku="p5y", count=0.0)], T0)
        reasons = con.execute("select reason from rejects order by 1").fetchall()
        loaded = con.execute("select sku from price_observations").fetchall()
    assert (outcome.status, outcome.rows_loaded, outcome.rows_rejected) == ("ok", 1, 2)
    assert reasons == [("gpu_count_invalid",)] * 2 and loaded == [("p5.48xlarge",)]
