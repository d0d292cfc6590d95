"""The shared raw layer's two Iceberg tables (cluster/shared_raw.py): raw.fetches (the
markers) and raw.price_observations, their schemas (PRICE_COLUMNS of
warehouse/raw_schema.py, typed and not-null as in schema.sql), their partitioning by month
and the month filters a read plans with, and the rows shaped to fit them (a fetch row, the
price rows as an Arrow table).
"""

from __future__ import annotations

import dataclasses
import os
import socket
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

import pyarrow as pa
import pyarrow.compute as pc
from pyiceberg.expressions import (
    AlwaysTrue,
    And,
    BooleanExpression,
    GreaterThanOrEqual,
    LessThan,
    Or,
)
from pyiceberg.partitioning import PartitionField, PartitionSpec
from pyiceberg.schema import Schema
from pyiceberg.transforms import MonthTransform
from pyiceberg.types import (
    BooleanType,
    DoubleType,
    IntegerType,
    LongType,
    NestedField,
    StringType,
    TimestamptzType,
)

from gpucost.catalog.secrets import redact
from gpucost.cluster.raw_errors import InvalidFetchError
from gpucost.cluster.uuid7 import uuid7
from gpucost.warehouse.raw_schema import PRICE_COLUMNS

CATALOG_NAME = "gpucost"
NAMESPACE = "raw"
FETCHES = "fetches"
OBSERVATIONS = "price_observations"
FETCH_STATUSES = ("ok", "failed")


def _schema(columns: Sequence[tuple[str, Any, bool]]) -> Schema:
    """An Iceberg schema of (name, type, required) columns, field ids 1, 2, ..."""
    return Schema(*(NestedField(field_id=i, name=name, field_type=kind, required=required)
                    for i, (name, kind, required) in enumerate(columns, start=1)))


FETCH_SCHEMA = _schema([
    ("fetch_id", StringType(), True),
    ("run_id", StringType(), False),
    ("worker", StringType(), False),  # host:pid of the writer
    ("source", StringType(), True),
    ("stream", StringType(), False),
    ("status", StringType(), True),  # ok | failed
    ("sha256", StringType(), False),
    ("payload_keys", StringType(), False),  # object keys of the saved payload, ';'-joined
    ("payload_bytes", LongType(), False),
    ("observed_at", TimestamptzType(), False),
    ("fetched_at", TimestamptzType(), True),
    ("rows", LongType(), False),
    ("error_type", StringType(), False),
    ("error", StringType(), False),
])
# the columns of warehouse/raw_schema.py PRICE_COLUMNS, typed and not-null as in schema.sql
PRICE_SCHEMA = _schema([
    ("fetch_id", StringType(), True),
    ("source", StringType(), True),
    ("provider", StringType(), True),
    ("sku", StringType(), True),
    ("region", StringType(), True),
    ("pricing_model", StringType(), True),
    ("os", StringType(), False),
    ("currency", StringType(), True),
    ("price_per_hour", DoubleType(), False),
    ("gpu_name_raw", StringType(), False),
    ("gpu_count", DoubleType(), False),
    ("gpu_memory_gb", DoubleType(), False),
    ("vcpus", DoubleType(), False),
    ("ram_gb", DoubleType(), False),
    ("observed_at", TimestamptzType(), True),
    ("offer_count", IntegerType(), False),
    ("price_p10_per_hour", DoubleType(), False),
    ("price_p90_per_hour", DoubleType(), False),
    # optional: a table created before the column existed gains it (SharedRaw.ensure_tables),
    # and its older rows read as null, i.e. 'instance' (stg_raw__price_observations)
    ("price_kind", StringType(), False),
    # optional, added later like price_kind: older rows read as null (not stated)
    ("payment", StringType(), False),
    ("available", BooleanType(), False),
])
if [f.name for f in PRICE_SCHEMA.fields] != PRICE_COLUMNS:
    raise ImportError("warehouse/raw_schema.py PRICE_COLUMNS changed: update PRICE_SCHEMA")


def _month_spec(schema: Schema, column: str) -> PartitionSpec:
    return PartitionSpec(PartitionField(
        source_id=schema.find_field(column).field_id, field_id=1000,
        transform=MonthTransform(), name=f"{column}_month"))


FETCH_SPEC = _month_spec(FETCH_SCHEMA, "fetched_at")
PRICE_SPEC = _month_spec(PRICE_SCHEMA, "observed_at")
FETCH_ARROW = FETCH_SCHEMA.as_arrow()
PRICE_ARROW = PRICE_SCHEMA.as_arrow()


def month_bounds(month: str) -> tuple[datetime, datetime]:
    """[start, end) of a 'YYYY-MM' month in UTC."""
    try:
        start = datetime.strptime(month, "%Y-%m").replace(tzinfo=UTC)
    except (TypeError, ValueError):
        raise ValueError(f"month must be 'YYYY-MM', not {month!r}") from None
    end = start.replace(year=start.year + (start.month == 12), month=start.month % 12 + 1)
    return start, end


def month_filter(column: str, months: Iterable[str] | None) -> BooleanExpression:
    """A row filter for `column` inside any of `months`: a plain range per month, which
    pyiceberg projects onto the month partitions and uses to skip manifests and data files
    of other months (the partition transform itself cannot be named in a row filter)."""
    if months is None:
        return AlwaysTrue()
    ranges: list[BooleanExpression] = []
    for month in sorted(set(months)):
        start, end = month_bounds(month)
        ranges.append(And(GreaterThanOrEqual(column, start.isoformat()),
                          LessThan(column, end.isoformat())))
    if not ranges:
        raise ValueError("months is empty: pass None for all months")
    return ranges[0] if len(ranges) == 1 else Or(*ranges)


def aware(when: datetime) -> datetime:
    return when if when.tzinfo else when.replace(tzinfo=UTC)


def fetch_row(fetch: dict[str, Any], prices: Any) -> dict[str, Any]:
    """A row of raw.fetches from `fetch` (its defaults filled in: a UUIDv7 fetch_id, status
    'ok', fetched_at now, worker host:pid, rows the number of prices; errors redacted), or
    InvalidFetchError."""
    unknown = set(fetch) - set(FETCH_ARROW.names)
    if unknown:
        raise InvalidFetchError(f"unknown fetch columns: {', '.join(sorted(unknown))}")
    row = {name: fetch.get(name) for name in FETCH_ARROW.names}
    row["fetch_id"] = str(row["fetch_id"] or uuid7())
    row["status"] = row["status"] or "ok"
    if row["status"] not in FETCH_STATUSES:
        raise InvalidFetchError(f"fetch status must be one of {FETCH_STATUSES}, "
                                f"not {row['status']!r}")
    if not row["source"]:
        raise InvalidFetchError("a fetch needs its source")
    row["fetched_at"] = aware(row["fetched_at"] or datetime.now(UTC))
    if row["observed_at"] is not None:
        row["observed_at"] = aware(row["observed_at"])
    row["worker"] = row["worker"] or f"{socket.gethostname()}:{os.getpid()}"
    if row["rows"] is None:
        row["rows"] = 0 if prices is None else len(prices)
    if isinstance(row["payload_keys"], list | tuple):
        row["payload_keys"] = ";".join(row["payload_keys"])
    for name in ("error", "error_type"):
        if row[name]:
            row[name] = redact(str(row[name]))
    return row


def price_rows(prices: Any, fetch: dict[str, Any]) -> pa.Table:
    """The price rows as an Arrow table of PRICE_ARROW's schema, with the fetch's fetch_id
    and source and, where a row has none, its observed_at."""
    if isinstance(prices, pa.Table):
        extra = set(prices.column_names) - set(PRICE_COLUMNS)
        if extra:
            raise InvalidFetchError(f"unknown price columns: {', '.join(sorted(extra))}")
        n = prices.num_rows
        columns = {name: prices[name] if name in prices.column_names
                   else pa.nulls(n, PRICE_ARROW.field(name).type) for name in PRICE_COLUMNS}
    else:
        records = [dataclasses.asdict(p) if dataclasses.is_dataclass(p) else dict(p)
                   for p in prices]
        extra = {k for r in records for k in r} - set(PRICE_COLUMNS)
        if extra:
            raise InvalidFetchError(f"unknown price columns: {', '.join(sorted(extra))}")
        n = len(records)
        for r in records:
            if isinstance(r.get("observed_at"), datetime):
                r["observed_at"] = aware(r["observed_at"])
        plain = pa.schema([f.with_nullable(True) for f in PRICE_ARROW])
        try:
            loose = pa.Table.from_pylist(records, schema=plain)
        except (pa.ArrowInvalid, pa.ArrowTypeError) as exc:
            raise InvalidFetchError(f"price rows do not fit the table: {exc}") from None
        columns = {name: loose[name] for name in PRICE_COLUMNS}
    columns["fetch_id"] = pa.array([fetch["fetch_id"]] * n, pa.string())
    columns["source"] = pa.array([fetch["source"]] * n, pa.string())
    arrays = []
    for target in PRICE_ARROW:
        column = columns[target.name]
        try:
            column = column.cast(target.type, safe=target.type != pa.timestamp("us", "UTC"))
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError) as exc:
            raise InvalidFetchError(f"price column {target.name}: {exc}") from None
        if target.name == "observed_at" and fetch.get("observed_at") is not None:
            column = pc.fill_null(column, pa.scalar(fetch["observed_at"], target.type))
        if not target.nullable and column.null_count:
            raise InvalidFetchError(f"price column {target.name} is required: "
                                    f"{column.null_count} of {n} rows have none")
        arrays.append(column.combine_chunks() if isinstance(column, pa.ChunkedArray)
                      else column)
    return pa.Table.from_arrays(arrays, schema=PRICE_ARROW)
