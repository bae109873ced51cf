"""parse_results: the RESULT lines of the lab's C programs."""
import pytest

from ito_lab.parse import ResultParseError, parse_results, parse_value
from ito_lab.report import parse_results as reexported


def test_parses_typed_values_and_ignores_other_lines():
    text = ("warming up\n"
            "RESULT benchmark=switch system=ucontext median_ns=160.25 trials=31\n"
            "  RESULT benchmark=yield system=go median_ns=80 trials=5  \n"
            "done\n")
    got = parse_results(text)
    assert got == [
        {"benchmark": "switch", "system": "ucontext", "median_ns": 160.25, "trials": 31},
        {"benchmark": "yield", "system": "go", "median_ns": 80, "trials": 5},
    ]
    assert isinstance(got[0]["trials"], int) and isinstance(got[0]["median_ns"], float)


def test_values_that_are_not_finite_numbers_stay_strings():
    (r,) = parse_results("RESULT system=nan x=inf y=1e3 z=-2 w=.5 v=1.2.3 u=0x10\n")
    assert r == {"system": "nan", "x": "inf", "y": 1000.0, "z": -2, "w": 0.5, "v": "1.2.3",
                 "u": "0x10"}


def test_parse_value():
    assert parse_value("31") == 31
    assert parse_value("4.5") == 4.5
    assert parse_value("boost-fiber") == "boost-fiber"


def test_only_the_exact_word_result_starts_a_line():
    assert parse_results("RESULTS a=1\nresult a=1\nXRESULT a=1\n") == []


def test_crlf_and_empty_text():
    assert parse_results("") == []
    assert parse_results("RESULT a=1\r\nRESULT b=2\r\n") == [{"a": 1}, {"b": 2}]


@pytest.mark.parametrize("line,why", [
    ("RESULT", "without fields"),
    ("RESULT benchmark=switch junk", "not key=value"),
    ("RESULT benchmark=", "empty value"),
    ("RESULT =3", "bad key"),
    ("RESULT 9a=3", "bad key"),
    ("RESULT a=1 a=2", "repeated key"),
])
def test_malformed_lines_raise_with_their_line_number(line, why):
    with pytest.raises(ResultParseError) as e:
        parse_results("hello\n" + line + "\n")
    assert e.value.lineno == 2
    assert why in str(e.value)
    assert isinstance(e.value, ValueError)


def test_non_strict_skips_malformed_lines():
    text = "RESULT a=1\nRESULT broken\nRESULT b=2\n"
    assert parse_results(text, strict=False) == [{"a": 1}, {"b": 2}]


def test_report_reexports_the_same_function():
    assert reexported is parse_results
