"""One bench's section of docs/benchmarks.md: the text between `<!-- NAME -->` and
`<!-- /NAME -->`, replaced (or added at the page's end), headed by the day, the machine and how
busy it was, so figures are never copied by hand.

A bench with `--page FILE` calls `write_section` itself (its own section names and text), or
hands its `main` to `record`, which runs it and writes what it printed. A shell bench pipes:

usage: SOMETHING | python tests/bench/page.py PAGE NAME "COMMAND"   (the section's text on stdin)
"""

from __future__ import annotations

import contextlib
import datetime
import io
import os
import platform
import re
import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

# A section: its markers (the name: a bench's file name, then what it measured, if more than
# one) and its first line, `COMMAND` — day, machine (tests/core/test_bench_page.py checks both).
SECTION = re.compile(r"(?m)^<!-- ([\w.+ -]+) -->\n(.*?)\n<!-- /\1 -->$", re.DOTALL)
HEADING = re.compile(
    r"^`(?P<command>python tests/bench/\S+|[^`]*tests/bench/\S+[^`]*)` — "
    r"(?P<day>\d{4}-\d\d-\d\d \d\d:\d\d UTC), (?P<machine>\d+ cores, .+; load average .+)$"
)


def machine() -> str:
    """Cores, memory, processor, and the load average when the figures were written."""
    model = platform.processor() or platform.machine()
    try:
        cpuinfo = Path("/proc/cpuinfo").read_text("utf-8", errors="replace")
        model = next(
            ln.split(":", 1)[1].strip() for ln in cpuinfo.splitlines() if "model name" in ln
        )
    except (OSError, StopIteration):
        pass
    try:
        memory = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 1024**3
    except (ValueError, OSError, AttributeError):
        memory = 0.0
    load = " / ".join(f"{x:.1f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "?"
    return f"{os.cpu_count()} cores, {memory:.0f} GB, {model}; load average {load} (1/5/15 min)"


def write_section(page: Path, name: str, text: str, command: str) -> None:
    """Replace the section `name` of `page` with `text`, headed by the command that wrote it."""
    start, end = f"<!-- {name} -->", f"<!-- /{name} -->"
    day = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC")
    section = f"{start}\n`{command}` — {day}, {machine()}\n\n{text.strip()}\n{end}"
    old = page.read_text("utf-8") if page.exists() else ""
    if start in old and end in old:
        before, rest = old.split(start, 1)
        new = before + section + rest.split(end, 1)[1]
    else:
        new = f"{old.rstrip()}\n\n{section}\n" if old else f"{section}\n"
    page.write_text(new, "utf-8")


class _Tee(io.TextIOBase):
    def __init__(self, out: TextIO) -> None:
        self.out, self.kept = out, io.StringIO()

    def write(self, text: str) -> int:
        self.kept.write(text)
        return self.out.write(text)

    def flush(self) -> None:
        self.out.flush()


def record(
    main: Callable[[list[str] | None], int], name: str, argv: list[str] | None = None
) -> int:
    """Run a bench's `main` on the command line's arguments (or `argv`); with `--page FILE`, what
    it printed becomes its section `name` of that page when it succeeds."""
    argv = list(sys.argv[1:] if argv is None else argv)
    page = None
    if "--page" in argv:
        at = argv.index("--page")
        page = Path(argv[at + 1])
        del argv[at : at + 2]
    tee = _Tee(sys.stdout)
    with contextlib.redirect_stdout(tee):
        code = main(argv)
    if code == 0 and page is not None:
        command = shlex.join(["python", f"tests/bench/{name}.py", *argv])
        write_section(page, name, f"```text\n{tee.kept.getvalue().rstrip()}\n```", command)
    return code


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    write_section(Path(sys.argv[1]), sys.argv[2], sys.stdin.read(), sys.argv[3])
