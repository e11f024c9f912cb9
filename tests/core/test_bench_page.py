"""docs/benchmarks.md is written by the benches: each bench's section between its markers, with
the date, the machine and the command that measured it (tests/bench/page.py)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.bench.page import HEADING, PAGE, record
from tests.conftest import ROOT

BENCH = ROOT / "tests" / "bench"
SECTION = re.compile(r"<!-- (\w+) -->\n(.*?)\n<!-- /\1 -->", re.DOTALL)


def _check_sections(text: str) -> list[str]:
    """The names of the page's sections; fails on a section not in the bench format."""
    markers = re.findall(r"(?m)^<!-- /?\w+ -->$", text)
    assert len(markers) == 2 * len(SECTION.findall(text)), "a marker without its pair"
    names = []
    for name, body in SECTION.findall(text):
        lines = body.split("\n")
        heading = HEADING.match(lines[0])
        assert heading and heading["name"] == name, lines[0]
        assert re.fullmatch(rf"`python tests/bench/{name}\.py( .*)?`", lines[2]), lines[2]
        assert lines[4] == "```text" and lines[-1] == "```", name
        assert (BENCH / f"{name}.py").is_file(), f"no bench writes {name}"
        names.append(name)
    return names


def test_every_section_of_the_benchmarks_page_is_a_benchs_dated_section() -> None:
    names = _check_sections(PAGE.read_text("utf-8"))
    assert len(names) == len(set(names))


def test_every_bench_that_prints_figures_writes_its_section_through_the_helper() -> None:
    for path in sorted(BENCH.glob("bench_*.py")):
        assert f'record(main, "{path.stem}")' in path.read_text("utf-8"), path.name


def _bench(figure: str) -> Callable[[list[str] | None], int]:
    def main(argv: list[str] | None) -> int:
        print(f"| figure | {figure} |")
        return 0

    return main


def test_a_run_replaces_its_section_and_a_trial_run_leaves_the_page_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "benchmarks.md"
    page.write_text("# Benchmarks\n\nBy hand.\n", "utf-8")
    for figure in ("1.5", "2.5"):
        assert record(_bench(figure), "bench_live", ["--page", str(page)]) == 0
    assert record(_bench("9"), "bench_live", ["--page", str(page), "--no-page"]) == 0
    text = page.read_text("utf-8")
    assert text.startswith("# Benchmarks\n\nBy hand.\n")
    assert _check_sections(text) == ["bench_live"]
    assert "| figure | 2.5 |" in text and "1.5" not in text and "| 9 |" not in text
    assert "| figure | 9 |" in capsys.readouterr().out  # printed all the same


def test_a_planted_section_without_date_or_machine_fails_the_check() -> None:
    bad = "<!-- bench_live -->\n### `bench_live`\n\n`python tests/bench/bench_live.py`\n\n"
    with pytest.raises(AssertionError):
        _check_sections(bad + "```text\nx\n```\n<!-- /bench_live -->")
