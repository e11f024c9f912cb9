"""One bench's section of docs/benchmarks.md: the text between `<!-- NAME -->` and
`<!-- /NAME -->`, replaced (or added at the page's end), headed by the day, the machine and how
busy it was, so figures are never copied by hand.

usage: SOMETHING | python tests/bench/page.py PAGE NAME "COMMAND"   (the section's text on stdin)
"""

from __future__ import annotations

import datetime
import os
import platform
import sys
from pathlib import Path


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


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    write_section(Path(sys.argv[1]), sys.argv[2], sys.stdin.read(), sys.argv[3])
