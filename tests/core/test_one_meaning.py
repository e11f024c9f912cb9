"""One meaning per name, and formatting left to the formatter: no class name repeats under
desktop_app (module names: tests/core/test_boundaries.py), each concept of the text grammar is
defined once, a name is handed on only by the api, a lazy import of the project's own code says
why, few hand-packed lines."""

from __future__ import annotations

import ast
import re
from collections import defaultdict
from pathlib import Path

from tests.conftest import ROOT

PACKAGE = ROOT / "desktop_app"
MAX_FMT_SKIP = 10


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def repeated_names(sources: dict[str, str]) -> dict[str, list[str]]:
    """Class names defined in more than one place (module path → source), with where."""
    where: dict[str, list[str]] = defaultdict(list)
    for name, source in sources.items():
        for node in ast.walk(ast.parse(source, name)):
            if isinstance(node, ast.ClassDef):
                where[node.name].append(f"{name}:{node.lineno}")
    return {cls: places for cls, places in where.items() if len(places) > 1}


def test_no_two_classes_share_a_name() -> None:
    sources = {str(p.relative_to(ROOT)): p.read_text("utf-8") for p in _modules()}
    assert repeated_names(sources) == {}


def test_the_name_check_sees_a_repeat() -> None:
    found = repeated_names({"a.py": "class Span: ...", "b.py": "class Span: ...\nclass B: ..."})
    assert found == {"Span": ["a.py:1", "b.py:1"]}


# Modules that hand on (list in `__all__`) names they import: the one door for the front ends,
# and the passage types the answer events carry as their parts. A package's `__init__` is its
# own face and may too.
HANDS_ON = {"desktop_app/core/api.py": {"*"}, "desktop_app/core/events.py": {"Evidence", "Passage"}}


def handed_on(sources: dict[str, str]) -> dict[str, list[str]]:
    """Names a module lists in `__all__` but imports, by module (path → source)."""
    found: dict[str, list[str]] = {}
    for name, source in sources.items():
        imported: set[str] = set()
        listed: list[str] = []
        for node in ast.parse(source, name).body:
            if isinstance(node, ast.ImportFrom | ast.Import):
                imported |= {(a.asname or a.name).split(".")[0] for a in node.names}
            elif isinstance(node, ast.Assign) and "__all__" in [
                t.id for t in node.targets if isinstance(t, ast.Name)
            ]:
                listed = list(ast.literal_eval(node.value))
        if passed := [n for n in listed if n in imported]:
            found[name] = passed
    return found


def test_a_name_is_handed_on_only_by_the_api() -> None:
    """Each name is imported from the module that defines it; only the api hands names on (a
    type passed on through several modules' `__all__` hides where it lives)."""
    sources = {
        str(p.relative_to(ROOT)): p.read_text("utf-8")
        for p in _modules()
        if p.name != "__init__.py"
    }
    extra = {
        module: [n for n in names if not HANDS_ON.get(module, set()) & {"*", n}]
        for module, names in handed_on(sources).items()
    }
    assert {module: names for module, names in extra.items() if names} == {}
    assert "Change" in handed_on(sources)["desktop_app/core/api.py"]  # the check reads __all__


def test_the_hand_on_check_sees_a_pass_through() -> None:
    planted = {"w.py": "from o import Change, Debouncer\n__all__ = ['Change', 'LiveIndex']\n"}
    assert handed_on(planted) == {"w.py": ["Change"]}


def test_a_lazy_import_of_the_projects_own_code_says_why() -> None:
    """ruff's PLC0415 keeps imports at module top; each exception carries its reason."""
    unexplained = []
    for path in _modules():
        lines = path.read_text("utf-8").splitlines()
        for i, line in enumerate(lines):
            if "noqa: PLC0415" in line:
                reason = re.search(r"noqa: PLC0415 \(.+\)", line) or lines[
                    i - 1
                ].strip().startswith("#")
                if not reason:
                    unexplained.append(f"{path.relative_to(ROOT)}:{i + 1}")
    assert unexplained == []


def test_few_hand_packed_lines() -> None:
    count = sum(p.read_text("utf-8").count("# fmt: skip") for p in _modules())
    assert count <= MAX_FMT_SKIP, f"{count} `# fmt: skip` lines: split the module instead"


# The text grammar (core/text.py): a fragment of each concept's pattern, as its source is
# written. Found in any other module under desktop_app, it is a second definition.
GRAMMAR = {
    "code fence": "(`{3,}|~{3,})",
    "ATX heading": "{0,3}(#{1,6})",
    "list item": "(?:[-*+•]|",
    "inline code": "`[^`\\n]",
    "indented code": "(?: {4}|\\t)",
    "command line": "\\$ (?!\\d)",
    "sentence end": "(?<=[.!?…])",
    "image": "!\\[[^\\]]*\\]\\(",
    "year": "1[0-9]{3}|20[0-9]{2}",
    "file suffix": ")[1].lower()",
}


def second_definitions(sources: dict[str, str]) -> dict[str, list[str]]:
    """The grammar's concepts written out anywhere but core/text.py (module path → source)."""
    found: dict[str, list[str]] = defaultdict(list)
    for name, source in sources.items():
        if name.endswith("core/text.py"):
            continue
        for concept, fragment in GRAMMAR.items():
            if fragment in source:
                found[concept].append(name)
    return dict(found)


def test_each_concept_of_the_text_grammar_is_defined_once() -> None:
    sources = {str(p.relative_to(ROOT)): p.read_text("utf-8") for p in _modules()}
    text = (PACKAGE / "core" / "text.py").read_text("utf-8")
    assert [c for c, fragment in GRAMMAR.items() if fragment not in text] == []
    assert second_definitions(sources) == {}


def test_the_grammar_check_sees_a_second_definition() -> None:
    planted = {"a.py": '_YEAR = re.compile(r"\\b(?:1[0-9]{3}|20[0-9]{2})\\b")\n'}
    assert second_definitions(planted) == {"year": ["a.py"]}
