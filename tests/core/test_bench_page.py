"""docs/benchmarks.md is written by the benches: each bench's section between its markers,
headed by the command that measured it, the day and the machine (tests/bench/page.py)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.bench.page import HEADING, SECTION, record, write_section
from tests.conftest import ROOT

BENCH = ROOT / "tests" / "bench"
PAGE = ROOT / "docs" / "benchmarks.md"


def _check_sections(text: str) -> list[str]:
    """The names of the page's sections; fails on a section not in the bench format."""
    markers = re.findall(r"(?m)^<!-- /?[\w.+ -]+ -->$", text)
    assert len(markers) == 2 * len(SECTION.findall(text)), "a marker without its pair"
    names = []
    for name, body in SECTION.findall(text):
        heading = HEADING.match(body.split("\n")[0])
        assert heading, f"{name}: {body.splitlines()[0]}"
        script = name.split()[0]
        assert (BENCH / f"{script}.py").is_file() or (BENCH / f"{script}.sh").is_file(), name
        names.append(name)
    return names


def test_every_section_of_the_benchmarks_page_is_a_benchs_dated_section() -> None:
    names = _check_sections(PAGE.read_text("utf-8"))
    assert names and len(names) == len(set(names))


def test_every_bench_that_prints_figures_writes_its_section_through_the_helper() -> None:
    for path in sorted(BENCH.glob("bench_*.py")):
        source = path.read_text("utf-8")
        assert f'record(main, "{path.stem}")' in source or "write_section(" in source, path.name


def _bench(figure: str) -> Callable[[list[str] | None], int]:
    def main(argv: list[str] | None) -> int:
        print(f"| figure | {figure} |")
        return 0

    return main


def test_a_run_replaces_its_section_and_without_page_leaves_the_page_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    page = tmp_path / "benchmarks.md"
    page.write_text("# Benchmarks\n\nBy hand.\n", "utf-8")
    for figure in ("1.5", "2.5"):
        assert record(_bench(figure), "bench_live", ["--page", str(page)]) == 0
    assert record(_bench("9"), "bench_live", []) == 0
    text = page.read_text("utf-8")
    assert text.startswith("# Benchmarks\n\nBy hand.\n")
    assert _check_sections(text) == ["bench_live"]
    assert "| figure | 2.5 |" in text and "| figure | 1.5 |" not in text and "| 9 |" not in text
    assert "| figure | 9 |" in capsys.readouterr().out  # printed all the same


def test_a_planted_section_without_day_or_machine_fails_the_check(tmp_path: Path) -> None:
    page = tmp_path / "benchmarks.md"
    write_section(page, "bench_live", "x", "python tests/bench/bench_live.py")
    assert _check_sections(page.read_text("utf-8")) == ["bench_live"]
    with pytest.raises(AssertionError):
        _check_sections(
            "<!-- bench_live -->\n`python tests/bench/bench_live.py`\n\nx\n<!-- /bench_live -->"
        )
