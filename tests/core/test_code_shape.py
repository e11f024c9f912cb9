"""The code stays in pieces a reader can hold: no module under desktop_app over 600 lines, no
function or method over 50 (from its `def` line to the end of its body, decorators excluded)."""

from __future__ import annotations

import ast

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
