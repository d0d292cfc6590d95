"""The data dictionary: every mart column documented, docs/tables.md up to date.

Adding a column to a mart without documenting it fails test_every_mart_column_is_documented
with the line to add; changing a mart or its docs without regenerating docs/tables.md fails
test_tables_md_is_up_to_date (run `gpucost docs`).
"""

from pathlib import Path

import pytest

from gpucost.flows.cli import docs as dictionary
from gpucost.models.docs import ColumnDocError, Dictionary, mart_names, parse_header

MODELS = Path(__file__).resolve().parents[2] / "models"


@pytest.fixture(scope="module")
def reference_columns():
    return dictionary.reference_columns()


def test_every_mart_column_is_documented(reference_columns):
    assert set(reference_columns) == set(mart_names())
    problems = Dictionary.load().problems(
        {m: [c for c, _ in cols] for m, cols in reference_columns.items()})
    assert not problems, "\n" + "\n".join(problems)


def test_tables_md_is_up_to_date(reference_columns):
    expected = dictionary.render_tables_md(reference_columns)
    current = dictionary.TABLES_MD.read_text(encoding="utf-8")
    assert current == expected, "docs/tables.md is stale: run `gpucost docs` and commit it"
    for mart, cols in reference_columns.items():
        assert f"## {mart}" in current
        for col, dtype in cols:
            assert f"| `{col}` | {dtype} |" in current


def _models_copy(tmp_path: Path, mart_sql: str) -> Path:
    (tmp_path / "marts").mkdir()
    (tmp_path / "glossary.csv").write_text(
        (MODELS / "glossary.csv").read_text(encoding="utf-8"), encoding="utf-8")
    (tmp_path / "marts" / "widgets.sql").write_text(mart_sql, encoding="utf-8")
    return tmp_path


WIDGETS = """-- one row per widget: a mart another engineer adds.
--
-- columns:
--   widget_count [widgets]: how many widgets
--   widget_note: a long meaning that goes on
--     over a second line
--   gone_column: documented but no longer selected

select 1 as widget_count, 'x' as widget_note, 'a100' as accelerator_id, 2 as new_column
"""


def test_undocumented_and_stale_columns_are_named_with_the_fix(tmp_path):
    docs = Dictionary.load(_models_copy(tmp_path, WIDGETS))
    problems = docs.problems({"widgets": ["widget_count", "widget_note", "accelerator_id",
                                          "new_column"]})
    assert len(problems) == 2, problems
    undocumented, stale = problems
    # accelerator_id is a public name documented once in models/glossary.csv
    assert undocumented.startswith("widgets.new_column is undocumented")
    assert "`--   new_column [unit]: meaning`" in undocumented
    assert "models/marts/widgets.sql" in undocumented
    assert stale.startswith("widgets.gone_column is documented")
    note = docs.column("widgets", "widget_note")
    assert note.description == "a long meaning that goes on over a second line"
    assert docs.column("widgets", "widget_count").unit == "widgets"
    assert docs.column("widgets", "accelerator_id").origin == "glossary"


def test_render_refuses_an_undocumented_column(tmp_path):
    docs = Dictionary.load(_models_copy(tmp_path, WIDGETS))
    with pytest.raises(dictionary.UndocumentedColumnsError, match="new_column"):
        dictionary.render_tables_md({"widgets": [("widget_count", "INTEGER"),
                                                 ("new_column", "INTEGER")]}, docs)


@pytest.mark.parametrize("block, error", [
    ("--   widget_count: \n", "no description"),
    ("--   widget_count: a\n--   widget_count: b\n", "documented twice"),
    ("--   widget count: has a space\n", "cannot read"),
])
def test_malformed_columns_block_is_a_clear_error(block, error):
    sql = "-- one row per widget\n--\n-- columns:\n" + block + "\nselect 1 as widget_count\n"
    with pytest.raises(ColumnDocError, match=error):
        parse_header("widgets", Path("widgets.sql"), sql)


def test_docs_check_command(tmp_path, capsys):
    from gpucost.flows.cli import main as cli

    assert cli.main(["docs", "--check"]) == 0
    stale = tmp_path / "tables.md"
    stale.write_text("old\n")
    assert cli.main(["docs", "--check", "--output", str(stale)]) == 1
    assert "stale" in capsys.readouterr().err
