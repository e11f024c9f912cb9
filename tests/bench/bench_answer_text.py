"""Answer text benchmark: is what Quire shows as *the answer* right, short, in the question's
language and free of made-up words, loops and scaffolding?

usage: python tests/bench/bench_answer_text.py [--per-set 30] [--model GGUF] [--languages CODES]
                                               [--model-cache FILE.jsonl] [--eval DIR] [--json]

Questions with short gold answers, per language (fixed seed):
- en: the sample notes' English questions + `--per-set` of xquad-en;
- de: the sample notes' German questions + `--per-set` of xquad-de;
- cs: the sample notes' Czech questions + tests/data/answers-cs (40 questions on 14 Czech notes
  written for Quire before any tuning).
Each is asked as the window asks it (`answer_events`, the bundled model unless `--model`); what
the window shows is read off the same Markdown the chat view renders (`core/turn_view.py`), so a
draft counts as shown only if the reader sees it without unfolding it.

Judged on the shown answer (and any shown draft), by this file's own rules:
- holds gold: the gold answer's words stand in it (case and spacing ignored);
- made-up words: words that are neither in wordfreq's list for the language nor in the sources
  or the question;
- loops: a run of four words written twice;
- scaffolding: a label ("The answer is:", "A:", "In German:") other than Quire's own
  "Your notes say:", talk about the sources ("The key sentence from the source is"), or a `[n]`
  past the sources given;
- wrong language: words Quire or the model wrote (six or more, outside a quotation of the notes,
  which is in the notes' own language) that py3langid reads as another language;
- clean: holds gold and none of the above; and the median characters shown.
Also: how often the model's words were the answer (generated); how often the answer line holds
the gold (the line composed from the evidence, shown or not), the evidence unit it was cut from
does, and any shown evidence unit does; and how often the shown answer misses a gold answer that
the answer line holds (worse_than_line: generation made it worse than the evidence alone). Each
row printed names the model's draft and why it gave way, when it did.

`--page` writes the bundled model's table into its own section; a table for `--model` goes to a
section of its own, named after the model file, so one never overwrites the other.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shlex
import statistics
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
EVAL = ROOT.parent / "shared" / "eval"
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from desktop_app.core.answer import answer_line  # noqa: E402
from desktop_app.core.answer.ask import answer_events  # noqa: E402
from desktop_app.core.answer.evidence import Evidence  # noqa: E402
from desktop_app.core.api import Quire  # noqa: E402
from desktop_app.core.cancel import CancelToken  # noqa: E402
from desktop_app.core.conversations import Turn  # noqa: E402
from desktop_app.core.events import Done, EvidenceShown, SourcesFound  # noqa: E402
from desktop_app.core.retrieval import analyzer  # noqa: E402
from desktop_app.core.text import clean_text  # noqa: E402
from desktop_app.core.turn_view import turn_markdown  # noqa: E402
from desktop_app.paths import sample_notes  # noqa: E402
from tests.bench.page import write_section  # noqa: E402
from tests.bench.recorded_model import RecordedModel  # noqa: E402

SAMPLE_QUESTIONS = ROOT / "tests" / "data" / "sample_questions.jsonl"
CZECH_SET = ROOT / "tests" / "data" / "answers-cs"
LANGUAGES = ("en", "de", "cs")
OWN_LABEL = "Your notes say:"
DRAFT_SHOWN = "The model's draft:*"  # the line above a draft the window shows unfolded
_LABEL = re.compile(
    r"(?:^|(?<=[.!?\]]\s))\s*(?:\w+\s){0,2}\w+:\s"
    r"|\bthe answer (?:to (?:this|the) question )?is\b|\bto answer this\b"
    r"|\b(?:key|relevant) (?:sentences?|passages?|quotes?)\b"
    r"|\bthe (?:sources?|passages?) (?:says?|states?|is)\b"
    r"|\b(?:stated|mentioned|said|given|written) in (?:the )?(?:sources?|passages?)\b",
    re.I,
)
_CITATION = re.compile(r"\[(\d+)\]")
_QUOTED = re.compile(re.escape(OWN_LABEL) + r"\s*“.*?”", re.DOTALL)


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text("utf-8").splitlines() if x.strip()]


_EDITORS_NOTE = re.compile(r"\[[^\]\d]*\](?!\()")  # "[citation needed]"; not a link's text


def norm(text: str) -> str:
    """Case and spacing ignored, also between a figure and its unit sign ("160°C", "160 °C")
    and around the colon of a ratio ("1 : 10", "1:10"); a dash is a dash ("20–18", "20-18");
    an editor's note in brackets (Wikipedia's "[citation needed]" inside XQuAD's gold answers)
    is no part of an answer."""
    text = _EDITORS_NOTE.sub(" ", text.casefold()).replace("–", "-").replace("—", "-")
    text = re.sub(r"(?<=\d)\s*:\s*(?=\d)", ":", re.sub(r"(?<=\d)\s+(?=[°%])", "", text))
    return " ".join(re.sub(r"[^\w°%.,:-]+", " ", text).split())


def holds(text: str, gold: str) -> bool:
    wanted = norm(gold)
    return bool(wanted) and wanted in norm(text)


def made_up(text: str, language: str, known: Iterable[str]) -> list[str]:
    import wordfreq

    held = {w for t in known for w in analyzer.words(t)}
    words = analyzer.words(_CITATION.sub(" ", text.replace(OWN_LABEL, " ")))
    return [
        w for w in dict.fromkeys(words)
        if len(w) > 2 and not any(c.isdigit() for c in w) and w not in held
        and wordfreq.zipf_frequency(w, language, wordlist="large") == 0
    ]  # fmt: skip


def loops(text: str) -> bool:
    words = [w.casefold() for w in text.split()]
    grams = [tuple(words[i : i + 4]) for i in range(len(words) - 3)]
    return len(grams) != len(set(grams))


def scaffolding(text: str, sources: int) -> bool:
    plain = text.replace(OWN_LABEL, "")
    beyond = any(int(n) < 1 or int(n) > sources for n in _CITATION.findall(plain))
    return beyond or bool(_LABEL.search(plain))


def wrong_language(text: str, language: str) -> bool:
    """Words written in another language than the question's; a quotation of the notes (“…”
    after "Your notes say:") is the notes' own words, in their language, and is not judged."""
    plain = _CITATION.sub(" ", _QUOTED.sub(" ", text))
    if len(analyzer.words(plain)) < 6:
        return False
    return analyzer.detect_language(plain, LANGUAGES) != language


def shown(question: str, events: list[Any]) -> tuple[str, str, Done]:
    """The answer as the window shows it (its first block) and any draft text it shows."""
    sources = next(e for e in events if isinstance(e, SourcesFound))
    evidence = next((e for e in events if isinstance(e, EvidenceShown)), None)
    done = events[-1]
    turn = Turn(question, done.answer, sources.sources, done.citations, done.answerable)
    turn.evidence = [] if evidence is None else evidence.evidence
    turn.draft, turn.quote, turn.unsupported = done.draft, done.quote, done.unsupported
    markdown = turn_markdown(turn, 0)
    draft = done.draft.answer if done.draft and DRAFT_SHOWN in markdown else ""
    return done.answer, draft, done


def _evidence(events: list[Any]) -> list[Any]:
    shown = next((e for e in events if isinstance(e, EvidenceShown)), None)
    return [] if shown is None else shown.evidence


def _unit_holds(events: list[Any], line: Evidence | None, gold: str) -> bool:
    """The evidence unit the answer line was cut from holds the gold answer."""
    if line is None:
        return False
    units = [e for e in _evidence(events) if e.path == line.path and e.start <= line.start
             and line.end <= e.end]  # fmt: skip
    return any(holds(u.text, gold) for u in units)


def judge(
    q: dict[str, Any], language: str, events: list[Any], line: Evidence | None = None
) -> dict[str, Any]:
    """`line`: the answer line composed from the evidence (the shown one when it was shown)."""
    if not isinstance(events[-1], Done) or not events[-1].answerable:
        return {"id": q["id"], "refused": True, "gold": False, "clean": False, "chars": 0}
    answer, draft, done = shown(q["question"], events)
    sources = next(e for e in events if isinstance(e, SourcesFound)).sources
    known = [q["question"], *(s.text for s in sources)]
    text = f"{answer}\n{draft}"
    line = done.quote or line
    line_gold = line is not None and holds(line.text, q["answer"])
    row = {
        "id": q["id"], "refused": False, "gold": holds(answer, q["answer"]),
        "made_up": made_up(text, language, known), "loops": loops(text),
        "scaffolding": scaffolding(text, len(sources)),
        "wrong_language": wrong_language(answer, language), "draft_shown": bool(draft),
        "chars": len(answer), "generated": done.quote is None and not done.declined,
        "line_gold": line_gold, "unit_gold": _unit_holds(events, line, q["answer"]),
        "evidence_gold": any(holds(e.text, q["answer"]) for e in _evidence(events)),
        "answer": answer,
    }  # fmt: skip
    row["worse_than_line"] = line_gold and not row["gold"]
    if done.draft is not None:
        row["draft"] = done.draft.answer
        row["why"] = [str(done.draft.replaced), *done.draft.problems]
    defects = row["made_up"] or row["loops"] or row["scaffolding"] or row["wrong_language"]
    row["clean"] = row["gold"] and not defects and not row["draft_shown"]
    return row


def questions_for(
    language: str, per_set: int, eval_dir: Path, limit: int | None = None
) -> dict[str, list[dict]]:
    """Each question set of a language (at most `limit` questions of each)."""
    sample = [
        q for q in read_jsonl(SAMPLE_QUESTIONS)
        if analyzer.detect_language(q["question"], LANGUAGES) == language
    ]  # fmt: skip
    if language == "cs":
        sets = {"sample": sample, "answers-cs": read_jsonl(CZECH_SET / "questions.jsonl")}
    else:
        xquad = read_jsonl(eval_dir / f"xquad-{language}" / "questions.jsonl")
        picked = random.Random(35).sample(xquad, min(per_set, len(xquad)))
        sets = {"sample": sample, f"xquad-{language}": picked}
    return {name: questions[:limit] for name, questions in sets.items()}


def folder_of(name: str, eval_dir: Path) -> Path:
    if name == "sample":
        return sample_notes()
    if name == "answers-cs":
        return CZECH_SET / "notes"
    return eval_dir / name / "notes"


def run(args: argparse.Namespace, model: Any, work: Path) -> dict[str, list[dict]]:
    rows: dict[str, list[dict]] = {lang: [] for lang in args.languages}
    homes: dict[str, Quire] = {}
    for language in args.languages:
        sets = questions_for(language, args.per_set, args.eval, args.limit)
        for name, questions in sets.items():
            if name not in homes:
                homes[name] = Quire.open(work / name)
                homes[name].index([folder_of(name, args.eval)])
            retrieval = homes[name].answers.retrieval()
            for q in questions:
                events = list(answer_events(retrieval, q["question"], [], model, CancelToken(),
                                            temperature=0.0))  # fmt: skip
                asked = retrieval.read(clean_text(q["question"]))
                line = answer_line.compose(_evidence(events), asked)
                rows[language].append({"set": name, **judge(q, language, events, line)})
                print(
                    json.dumps(rows[language][-1], ensure_ascii=False), file=sys.stderr, flush=True
                )
    for quire in homes.values():
        quire.close()
    return rows


def share(rows: list[dict], key: str) -> str:
    return f"{sum(bool(r.get(key)) for r in rows) / len(rows):.2f}" if rows else "-"


def table(rows: dict[str, list[dict]]) -> str:
    keys = ("gold", "made_up", "loops", "scaffolding", "wrong_language", "draft_shown", "clean",
            "generated", "line_gold", "worse_than_line", "unit_gold", "evidence_gold")  # fmt: skip
    head = "| language | n | " + " | ".join(keys) + " | median chars |"
    lines = [head, "|" + "---|" * (len(keys) + 3)]
    for language, got in rows.items():
        median = statistics.median(r["chars"] for r in got) if got else 0
        cells = " | ".join(share(got, k) for k in keys)
        lines.append(f"| {language} | {len(got)} | {cells} | {median:.0f} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--per-set", type=int, default=30, help="xquad questions per language")
    parser.add_argument("--model", type=Path, help="a GGUF chat model (default: the bundled one)")
    parser.add_argument("--languages", default=",".join(LANGUAGES))
    parser.add_argument("--model-languages", help="what --model writes, e.g. 'en,de,cs' or '*'")
    parser.add_argument("--model-cache", type=Path, help="record generations here; replay on rerun")
    parser.add_argument("--eval", type=Path, default=EVAL)
    parser.add_argument("--limit", type=int, help="at most this many questions of each set")
    parser.add_argument("--page", type=Path, help="write the table into this Markdown page")
    args = parser.parse_args(argv)
    args.languages = args.languages.split(",")
    from desktop_app.core.answer.llm import LocalModel

    writes = args.model_languages.split(",") if args.model_languages else None
    model: Any = LocalModel(args.model, n_ctx=4096, languages=writes)
    label = (f"model {model.path.name}: {model.profile.family}, writes "
             f"{model.profile.languages_label()}")  # fmt: skip
    if args.model is not None:
        label += " (a model the user may choose, measured here only: never shipped)"
    print(label, flush=True)
    if args.model_cache:
        model = RecordedModel(model, args.model_cache)
    with tempfile.TemporaryDirectory() as tmp:
        rows = run(args, model, Path(tmp))
    print(table(rows))
    if args.page:
        section = (
            "bench_answer_text" if args.model is None else f"bench_answer_text {args.model.name}"
        )
        command = shlex.join(
            ["python", "tests/bench/bench_answer_text.py", *(argv or sys.argv[1:])]
        )
        write_section(args.page, section, f"{label}\n\n{table(rows)}", command)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
