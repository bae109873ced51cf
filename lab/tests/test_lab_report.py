"""report.py: CSV, Markdown tables and the Markdown report writer."""
import pytest

from ito_lab.report import (format_number, image, markdown_table, read_csv, write_csv,
                            write_report)


def test_write_csv_writes_the_exact_header_then_the_rows(tmp_path):
    p = write_csv(tmp_path / "sub" / "x.csv", ["benchmark", "system", "median_ns", "trials"],
                  [["switch", "ucontext", "160.250", 31], ("yield", "go", 80.5, 5)])
    assert p.read_text() == ("benchmark,system,median_ns,trials\n"
                             "switch,ucontext,160.250,31\n"
                             "yield,go,80.5,5\n")
    assert read_csv(p) == (["benchmark", "system", "median_ns", "trials"],
                           [["switch", "ucontext", "160.250", "31"], ["yield", "go", "80.5", "5"]])


def test_write_csv_quotes_cells_with_commas(tmp_path):
    p = write_csv(tmp_path / "q.csv", ["a", "b"], [["x,y", 'say "hi"']])
    assert p.read_text().splitlines()[1] == '"x,y","say ""hi"""'
    assert read_csv(p)[1] == [["x,y", 'say "hi"']]


def test_write_csv_header_only(tmp_path):
    p = write_csv(tmp_path / "e.csv", ["a", "b"], [])
    assert p.read_text() == "a,b\n"


@pytest.mark.parametrize("rows", [[[1]], [[1, 2, 3]]])
def test_write_csv_rejects_rows_that_do_not_match_the_header(tmp_path, rows):
    with pytest.raises(ValueError, match="cells"):
        write_csv(tmp_path / "bad.csv", ["a", "b"], rows)
    assert not (tmp_path / "bad.csv").exists()


def test_write_csv_needs_a_header(tmp_path):
    with pytest.raises(ValueError):
        write_csv(tmp_path / "h.csv", [], [])


def test_read_csv_of_an_empty_file(tmp_path):
    (tmp_path / "z.csv").write_text("")
    with pytest.raises(ValueError, match="empty"):
        read_csv(tmp_path / "z.csv")


def test_markdown_table_aligns_numbers_right_and_escapes_pipes():
    md = markdown_table(["system", "ns", "note"],
                        [["go", 80.5, "a|b"], ["pthread", 22385.2, "two\nlines"], ["x", None, ""]])
    assert md.splitlines() == [
        "| system | ns | note |",
        "|---|---:|---|",
        "| go | 80.50 | a\\|b |",
        "| pthread | 22,385 | two<br>lines |",
        "| x |  |  |",
    ]


def test_markdown_table_rejects_ragged_rows_and_empty_header():
    with pytest.raises(ValueError):
        markdown_table(["a", "b"], [[1]])
    with pytest.raises(ValueError):
        markdown_table([], [])


def test_markdown_table_without_rows():
    assert markdown_table(["a"], []) == "| a |\n|---|\n"


@pytest.mark.parametrize("v,s", [(22385.236, "22,385"), (160.25, "160.2"), (8.123, "8.12"),
                                 (0.0123, "0.0123"), (0.0, "0.00"), (float("nan"), "nan"),
                                 (float("inf"), "inf"), (-1500.0, "-1,500")])
def test_format_number(v, s):
    assert format_number(v) == s


def test_write_report_structure(tmp_path):
    p = write_report(tmp_path / "r" / "report.md", "Bench",
                     [("Machine", "- 2 CPUs\n"), ("Empty", ""), ("Table", "| a |\n|---|\n")])
    assert p.read_text() == ("# Bench\n\n## Machine\n\n- 2 CPUs\n\n## Empty\n\n"
                             "## Table\n\n| a |\n|---|\n")


@pytest.mark.parametrize("sections", [[("only heading",)], [("h", 3)], ["text"], [(1, "x")]])
def test_write_report_rejects_malformed_sections(tmp_path, sections):
    with pytest.raises(ValueError, match="section 0"):
        write_report(tmp_path / "r.md", "T", sections)


def test_write_report_needs_a_title(tmp_path):
    with pytest.raises(ValueError):
        write_report(tmp_path / "r.md", "  ", [])


def test_image_is_relative_to_the_report(tmp_path):
    assert image(tmp_path / "bench" / "yield.png", "yield", tmp_path / "bench") == \
        "![yield](yield.png)"
    assert image(tmp_path / "a" / "f.png", "f", tmp_path / "b") == "![f](../a/f.png)"
