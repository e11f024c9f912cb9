"""The code stays in pieces a reader can hold: no module under desktop_app over 600 lines, no
function or method over 50 (from its `def` line to the end of its body, decorators excluded);
its comments and docstrings say why, not what was measured (figures live in
docs/benchmarks.md, written by the benches)."""

from __future__ import annotations

import ast
import io
import re
import tokenize

from tests.conftest import ROOT

MAX_MODULE_LINES = 600  # the anchors' size: a module as long as its one concept needs
MAX_FUNCTION_LINES = 50


def shape_violations(source: str, name: str) -> list[str]:
    """What in one module's `source` is too long, as 'name: why' lines."""
    found = []
    lines = len(source.splitlines())
    if lines > MAX_MODULE_LINES:
        found.append(f"{name}: {lines} lines (max {MAX_MODULE_LINES})")
    for node in ast.walk(ast.parse(source, name)):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            length = (node.end_lineno or node.lineno) - node.lineno + 1
            if length > MAX_FUNCTION_LINES:
                found.append(
                    f"{name}:{node.lineno} {node.name}() {length} lines (max {MAX_FUNCTION_LINES})"
                )
    return found


def test_no_module_or_function_under_desktop_app_is_too_long() -> None:
    found = []
    for path in sorted((ROOT / "desktop_app").rglob("*.py")):
        found += shape_violations(path.read_text(encoding="utf-8"), str(path.relative_to(ROOT)))
    assert found == [], "split these:\n" + "\n".join(found)


def test_the_check_sees_a_long_function_and_a_long_module() -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(50))
    long_function = f"@decorator\ndef f() -> None:\n{body}\n"  # 51 lines from `def`
    assert shape_violations(long_function, "m.py") == ["m.py:2 f() 51 lines (max 50)"]
    short_function = f"@decorator\ndef f() -> None:\n{body[body.index(chr(10)) + 1 :]}\n"
    assert shape_violations(short_function, "m.py") == []
    long_module = "x = 1\n" * 601
    assert shape_violations(long_module, "m.py") == ["m.py: 601 lines (max 600)"]


# The shapes a measured figure takes in prose; an example of note text ("Bake 20 minutes at
# 250 °C") or a rule ("fit in 2× target") takes none of them.
MEASURED = {
    "a time": r"(?:~\s?\d[\d.]*|\b\d+\.\d+)\s?s\b|\b\d[\d.]*\s?(?:ms|µs)\b",
    "a figure before → after": r"\d\s?→\s?~?\d",
    "a score at k": r"\w@\d+(?:\s?/\s?@\d+)?\s+\d*\.\d",
    "a percentile": r"\bp(?:50|90|95|99)\b",
    "a speed-up": r"\d\s?[×x]\s+(?:slower|faster)",
    "a measurement": r"\bmeasured\b",
    "a comparison": r"\bvs\.?\s+~?\d",
    "a value's history": r"\b(?:raised|lowered|went|moved|changed) from ~?\d",
    "a share of questions": r"\d\.\d+ of (?:the time|them|the \w+)\b",
}
_MEASURED = re.compile("|".join(f"(?:{pattern})" for pattern in MEASURED.values()), re.IGNORECASE)


def measured_in_prose(source: str, name: str) -> list[str]:
    """Comment and docstring lines of one module that read as a measured figure ('name:line')."""
    prose = [
        (token.start[0], token.string)
        for token in tokenize.generate_tokens(io.StringIO(source).readline)
        if token.type == tokenize.COMMENT
    ]
    for node in ast.walk(ast.parse(source, name)):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            doc = ast.get_docstring(node, clean=False)
            if doc:
                prose += [
                    (node.body[0].lineno + i, line) for i, line in enumerate(doc.splitlines())
                ]
    return [f"{name}:{line}" for line, text in sorted(prose) if _MEASURED.search(text)]


def test_comments_say_why_not_what_was_measured() -> None:
    found = []
    for path in sorted((ROOT / "desktop_app").rglob("*.py")):
        found += measured_in_prose(path.read_text("utf-8"), str(path.relative_to(ROOT)))
    assert found == [], "say why instead (figures go to docs/benchmarks.md):\n" + "\n".join(found)


def test_the_check_sees_measured_figures_and_not_examples() -> None:
    planted = (
        '"""Load the ranks once (0.3 s): a thread loading them stalled the window 70 ms."""\n'
        "USE_COSINES = True  # evidence@1 0.77 → 0.81 on the dev questions\n"
        "def f() -> None:\n"
        '    """Small products ran 59× slower; the gold answer 0.35 of the time vs 0.20."""\n'
        "PRIOR = 0.15  # raised from 0.08 (p50 of the fit)\n"
    )
    assert measured_in_prose(planted, "m.py") == ["m.py:1", "m.py:2", "m.py:4", "m.py:5"]
    examples = (
        '"""A clause of "Bake 20 minutes at 250 °C, then 25 at 230 °C" answers "how long".\n'
        'A fragment joins the chunk before it when both fit in 2× target (Hit@k, MRR@10)."""\n'
        "MAX_MB = 20.0  # a PDF may be 10× as large; the timeout is in seconds\n"
    )
    assert measured_in_prose(examples, "m.py") == []
