"""The one way a bench writes its figures to docs/benchmarks.md: its own section between
`<!-- name -->` and `<!-- /name -->`, replaced on each run (added at the page's end the first
time), headed by the date, the machine and the command that measured it.

A bench calls `record(main, "bench_name")` in its `__main__` block: what `main` prints goes to
the terminal as before and, when `main` returns 0, into the section. `--no-page` on the command
line leaves the page alone (a trial run); `--page FILE` writes another page."""

from __future__ import annotations

import contextlib
import io
import os
import platform
import re
import shlex
import sys
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import TextIO

PAGE = Path(__file__).resolve().parents[2] / "docs" / "benchmarks.md"
# The heading every section starts with (tests/core/test_bench_page.py checks each one).
HEADING = re.compile(
    r"^### `(?P<name>\w+)` · (?P<date>\d{4}-\d\d-\d\d \d\d:\d\d) UTC · (?P<machine>.+)$"
)


def machine() -> str:
    """The machine, as a reader comparing figures needs it: OS, CPU, cores, memory."""
    cpu = platform.processor() or platform.machine()
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text("utf-8").splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    memory = ""
    with contextlib.suppress(OSError, ValueError, IndexError):
        kb = int(Path("/proc/meminfo").read_text("utf-8").split()[1])
        memory = f", {kb / 1e6:.1f} GB RAM"
    load = ""
    with contextlib.suppress(OSError, AttributeError):
        load = f", load {os.getloadavg()[0]:.1f}"
    return f"{platform.system()} {platform.machine()}, {cpu}, {os.cpu_count()} cores{memory}{load}"


def section(name: str, body: str, command: str, now: datetime | None = None) -> str:
    """The whole section: markers, heading, command, and what the bench printed."""
    when = (now or datetime.now(UTC)).strftime("%Y-%m-%d %H:%M")
    return (
        f"<!-- {name} -->\n### `{name}` · {when} UTC · {machine()}\n\n`{command}`\n\n"
        f"```text\n{body.rstrip()}\n```\n<!-- /{name} -->"
    )


def write_section(name: str, text: str, page: Path = PAGE) -> None:
    """Replace the section `name` of `page` with `text` (a whole section), or add it."""
    start, end = f"<!-- {name} -->", f"<!-- /{name} -->"
    old = page.read_text("utf-8") if page.exists() else ""
    if start in old and end in old:
        before, rest = old.split(start, 1)
        new = before + text + rest.split(end, 1)[1]
    else:
        new = f"{old.rstrip()}\n\n{text}\n" if old else f"{text}\n"
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
    """Run a bench's `main` on the command line's arguments (or `argv`); on success its printed
    figures become its section of the page."""
    argv = list(sys.argv[1:] if argv is None else argv)
    keep = "--no-page" not in argv
    argv = [a for a in argv if a != "--no-page"]
    page = PAGE
    if "--page" in argv:
        at = argv.index("--page")
        page = Path(argv[at + 1])
        del argv[at : at + 2]
    tee = _Tee(sys.stdout)
    with contextlib.redirect_stdout(tee):
        code = main(argv)
    if code == 0 and keep:
        command = shlex.join(["python", f"tests/bench/{name}.py", *argv])
        write_section(name, section(name, tee.kept.getvalue(), command), page)
        print(f"(written to {page.name}, section {name})", file=sys.stderr)
    return code
