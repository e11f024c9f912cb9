"""Answers benchmark: Quire's evidence-first, checked answers vs a naive RAG baseline.

usage: python tests/bench/bench_answers.py [--questions 100] [--generate 20] [--max-tokens 64]
                                           [--no-embedder-evidence] [--eval DIR]
                                           [--model-cache FILE.jsonl] [SET ...]

Per public set (xquad-en, xquad-de: the gold notes of `--questions` questions are removed from a
copy of the folder, as bench_gate.py does, and `--questions` questions whose gold notes stay are
the answerable ones; fixed seed) and on the bundled sample notes (tests/data/sample_questions
.jsonl, written before the method was tuned):
- evidence@1 / @3: a shown evidence sentence contains the gold answer, next to a naive baseline
  (Quire's top-3 passages split into sentences, ranked by IDF-weighted word overlap);
- every shown evidence span round-trips: note_text[start:end] == the shown sentence;
- outcomes: answered / weak evidence / not in your notes, on answerable and unanswerable ones;
- time to evidence (p50 / p95);
- on the first `--generate` answerable questions (the bundled model on CPU is slow): the
  generated answer contains the gold answer, for Quire and for the naive RAG baseline (top-5
  passages + the question in the model's own chat template, same model); answers with a valid
  citation; citation precision; invented figures marked; time to first token of both prompts.
ctkfacts-cs and til-en (answers are whole paragraphs / commands there) report outcomes; til-en
also, on its whole folder and all 60 questions, span evidence (a shown unit overlaps the gold
span in the gold note, @1 / @3, beside retrieval's top-1 passage doing so, and link-only units
shown) and, on the first `--generate` of them with the bundled model, the invented commands:
code spans and command lines of the answer and its draft found in no source, how many are
marked, and how many sit in a sentence shown as backed.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
EVAL = ROOT.parent / "shared" / "eval"
sys.path.insert(0, str(ROOT))
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from desktop_app.core.answer import ask, cues  # noqa: E402
from desktop_app.core.answer.ask import answer_events  # noqa: E402
from desktop_app.core.answer.decision import decide  # noqa: E402
from desktop_app.core.answer.llm import Generation  # noqa: E402
from desktop_app.core.api import Quire  # noqa: E402
from desktop_app.core.as_json import as_json  # noqa: E402
from desktop_app.core.cancel import CancelToken  # noqa: E402
from desktop_app.core.events import Outcome  # noqa: E402
from desktop_app.core.ingest import formats  # noqa: E402
from desktop_app.core.retrieval import analyzer  # noqa: E402
from desktop_app.paths import sample_notes  # noqa: E402
from tests.bench.bench_gate import indexed_without_gold  # noqa: E402
from tests.bench.recorded_model import RecordedModel  # noqa: E402

EMBED = [True]  # whether the bench's indexes get vectors (--no-embed: keyword only)
SIGNALS: list[dict[str, Any]] = []  # per question, for checking the thresholds offline
SAMPLE_QUESTIONS = ROOT / "tests" / "data" / "sample_questions.jsonl"
_SENTENCE = re.compile(r"[^.!?\n]+(?:[.!?]+|\n|$)")


def norm(text: str) -> str:
    return " ".join(text.casefold().split())


def contains(text: str, gold: str) -> bool:
    return norm(gold) in norm(text)


def naive_evidence(quire: Quire, question: str, results: list[Any]) -> list[str]:
    """Top-3 passages split into sentences, ranked by IDF-weighted word overlap."""
    weights = ask.index_weights(quire.database)
    q_words = set(analyzer.words(question))
    idf = weights(list(q_words))
    sentences = [m.group(0).strip() for r in results[:3] for m in _SENTENCE.finditer(r.text)]
    sentences = [s for s in sentences if s]

    def score(s: str) -> float:
        return sum(idf.get(w, 1.0) for w in q_words & set(analyzer.words(s)))

    return sorted(sentences, key=score, reverse=True)


def evidence_row(quire: Quire, q: dict, folder: Path, notes: dict[str, str]) -> dict[str, Any]:
    started = time.perf_counter()
    results = quire.search(q["question"], top_k=8)
    retrieval = quire.answers.retrieval()
    decision, found, _ = decide(retrieval, retrieval.read(q["question"]), results)
    found = found if decision.answerable else []
    seconds = time.perf_counter() - started
    for e in found:  # the round trip every shown sentence must pass
        text = notes.setdefault(e.path, formats.load(folder / e.path, 50_000_000).text)
        assert text[e.start : e.end] == e.text, (q["id"], e.path, e.start, e.end)
    naive = naive_evidence(quire, q["question"], results)
    gold = q.get("answer", "")
    best = max(found, key=lambda e: e.overlap) if found else None
    return {
        "outcome": decision.outcome, "seconds": seconds, "shown": len(found),
        "ev1": bool(found) and contains(found[0].text, gold),
        "ev3": any(contains(e.text, gold) for e in found[:3]),
        "naive1": bool(naive) and contains(naive[0], gold),
        "naive3": any(contains(s, gold) for s in naive[:3]),
        "top1": bool(results) and contains(results[0].text, gold),
        "chars": sum(len(e.text) for e in found[:3]),
        "top1_chars": len(results[0].text) if results else 0,
        "signals": [decision.coverage, decision.cosine, best.overlap if best else 0.0,
                    bool(best and best.cue), cues.question_kind(q["question"]),
                    any(r.trusted_dense for r in results)],
    }  # fmt: skip


def unanswerable_row(quire: Quire, q: dict) -> dict[str, Any]:
    results = quire.search(q["question"], top_k=8)
    retrieval = quire.answers.retrieval()
    decision, found, _ = decide(retrieval, retrieval.read(q["question"]), results)
    best = max(found, key=lambda e: e.overlap) if found else None
    return {"outcome": decision.outcome,
            "signals": [decision.coverage, decision.cosine, best.overlap if best else 0.0,
                        bool(best and best.cue), cues.question_kind(q["question"]),
                        any(r.trusted_dense for r in results)]}  # fmt: skip


def quire_answer(quire: Quire, model: Any, q: dict, max_tokens: int) -> dict[str, Any]:
    events = [as_json(e) for e in answer_events(quire.answers.retrieval(), q["question"], [], model,
                                                 CancelToken(), max_tokens, 0.0)]  # fmt: skip
    done = events[-1]
    if done["type"] != "done" or not done["answerable"]:
        return {"refused": True, "contains": False, "valid": False, "precision": [],
                "figures": (0, 0), "ttft": None, "prompt_tokens": 0, "backed": False}  # fmt: skip
    sources = next(e for e in events if e["type"] == "sources")["sources"]
    texts = {s["n"]: s["text"] for s in sources}
    gold = q["answer"]
    cited = done["citations"]["valid"]
    draft = done["draft"]
    caught, invented = invented_figures(done["answer"], done["unsupported"], texts)
    if draft is not None:  # the model's answer, shown as its draft with its figures marked
        more = invented_figures(draft["answer"], draft["unsupported"], texts)
        caught, invented = caught + more[0], invented + more[1]
    return {
        "refused": False, "contains": contains(done["answer"], gold), "valid": bool(cited),
        "model_contains": contains(done["generated"], gold), "backed": draft is None,
        "precision": [contains(texts[n], gold) for n in cited], "figures": (caught, invented),
        "ttft": done["timings"]["first_token_seconds"],
        "prompt_tokens": done["timings"]["prompt_tokens"],
    }  # fmt: skip


def invented_figures(text: str, unsupported: list[dict], texts: dict[int, str]) -> tuple[int, int]:
    """Numbers of `text` that are in no source, and how many of them are marked."""
    plain = re.sub(r"\[[\d,; ]+\]", "", text)
    invented = [m.group(0) for m in re.finditer(r"\d+(?:[.,]\d+)?", plain)
                if not any(m.group(0) in t for t in texts.values())]  # fmt: skip
    marked = {f["text"] for f in unsupported}
    return sum(1 for x in invented if any(x in m for m in marked)), len(invented)


def naive_answer(quire: Quire, model: Any, q: dict, max_tokens: int) -> dict[str, Any]:
    results = quire.search(q["question"], top_k=5)
    context = "\n\n".join(r.text for r in results)
    messages = [{"role": "user", "content": f"Context:\n{context}\n\nQuestion: {q['question']}"}]
    stats = Generation()
    text = "".join(model.stream(model.render(messages), max_tokens, CancelToken(), 0.0, stats))
    return {"contains": contains(text, q["answer"]), "ttft": stats.first_token_seconds,
            "prompt_tokens": stats.prompt_tokens}  # fmt: skip


_LINK_ONLY = re.compile(r"^\W*(?:!?\[[^\]]*\]\([^)]*\)\W*)+$|^\W*(?:https?://\S+\W*)+$")
_CODE_SPANS = re.compile(r"```[^\n]*\n(.*?)(?:```|\Z)|`([^`\n]+)`|^[ \t]*(\$ [^\n]+)",
                         re.DOTALL | re.MULTILINE)  # fmt: skip


def overlaps(e: Any, q: dict) -> bool:
    return e.path == q["path"] and e.start < q["end"] and q["start"] < e.end


def span_row(quire: Quire, q: dict, folder: Path, notes: dict[str, str]) -> dict[str, Any]:
    """Span evidence for one question with a gold span (til-en): which shown units overlap it."""
    results = quire.search(q["question"], top_k=8)
    retrieval = quire.answers.retrieval()
    decision, found, _ = decide(retrieval, retrieval.read(q["question"]), results)
    found = found if decision.answerable else []
    for e in found:
        text = notes.setdefault(e.path, formats.load(folder / e.path, 50_000_000).text)
        assert text[e.start : e.end] == e.text, (q["id"], e.path, e.start, e.end)
    return {"ev1": bool(found) and overlaps(found[0], q),
            "ev3": any(overlaps(e, q) for e in found[:3]),
            "top1": bool(results) and overlaps(results[0], q),
            "link_only": sum(bool(_LINK_ONLY.match(e.text.strip())) for e in found),
            "chars": sum(len(e.text) for e in found[:3]),
            "top1_chars": len(results[0].text) if results else 0,
            "shown": len(found), "kinds": [e.kind for e in found]}  # fmt: skip


def code_spans_at(text: str) -> list[tuple[str, int]]:
    """Code the answer presents, each with where it stands in the answer: fenced blocks line by
    line (Quire's quotation of a note left out: it is the note's own text), inline code,
    `$ command` lines; citations left out."""
    text = re.sub(r"Your notes say: “.*?” \[\d+\]", lambda m: " " * len(m.group(0)), text,
                  flags=re.DOTALL)  # fmt: skip
    spans = []
    for m in _CODE_SPANS.finditer(text):
        group = next(i for i, g in enumerate(m.groups(), start=1) if g is not None)
        at = m.start(group)
        for line in m.group(group).splitlines(keepends=True):
            code = " ".join(re.sub(r"\[\d+(?:,\s*\d+)*\]", " ", line).split())
            spans.append((code, at))
            at += len(line)
    return spans


def invented_code(answer: str, unsupported: list[dict], texts: dict[int, str],
                  sentences: list[dict]) -> dict[str, int]:  # fmt: skip
    """Code spans of `answer` found in no source, how many are marked, and how many of them
    stand inside a sentence the citation report counts as backed."""
    sources = [" ".join(t.replace("`", "").split()) for t in texts.values()]
    invented = [(c, at) for c, at in code_spans_at(answer)
                if c and not any(c.removeprefix("$ ") in s for s in sources)]  # fmt: skip
    marked = [
        " ".join(re.sub(r"\[\d+(?:,\s*\d+)*\]", " ", f["text"]).split()) for f in unsupported
    ]  # read as the spans are (citation-like groups left out)
    backed = [(s["start"], s["end"]) for s in sentences if s["cites"] and not s["weak"]
              and not s.get("unverified")]  # fmt: skip
    return {
        "invented": len(invented),
        "marked": sum(1 for c, _ in invented if any(c in m or m in c for m in marked if m)),
        "in_backed": sum(1 for _, at in invented if any(a <= at < b for a, b in backed)),
    }


def til_spans(args: argparse.Namespace, work: Path, model: Any) -> dict[str, Any]:
    """til-en on its whole folder: span evidence on all questions, invented commands on the first
    `--generate` with the bundled model."""
    folder = args.eval / "til-en" / "notes"
    questions = [json.loads(x) for x in (args.eval / "til-en" / "questions.jsonl").read_text(
        "utf-8").splitlines() if x]  # fmt: skip
    quire = Quire.open(work / "til-whole")
    quire.index([folder], embed=EMBED[0])
    notes: dict[str, str] = {}
    rows = [span_row(quire, q, folder, notes) for q in questions]
    out: dict[str, Any] = {"set": "til-en spans", "n": len(rows)}
    for key in ("ev1", "ev3", "top1"):
        out[key] = pct([r[key] for r in rows])
    out["link_only"] = sum(r["link_only"] for r in rows)
    out["shown"] = sum(r["shown"] for r in rows)
    out["code_first"] = pct([bool(r["kinds"]) and r["kinds"][0] == "code" for r in rows])
    out["chars"] = shown_length(rows)
    if model is not None and args.generate:
        out["commands"] = til_commands(quire, model, questions[: args.generate], args.max_tokens)
    quire.close()
    return out


def til_commands(quire: Quire, model: Any, questions: list[dict], max_tokens: int) -> dict:
    totals = {"answers": 0, "with_invented": 0, "replaced": 0, "invented": 0, "marked": 0,
              "in_backed": 0}  # fmt: skip
    for q in questions:
        retrieval = quire.answers.retrieval()
        events = [as_json(e) for e in answer_events(retrieval, q["question"], [], model,
                                                     CancelToken(), max_tokens, 0.0)]  # fmt: skip
        done = events[-1]
        if done["type"] != "done" or not done["answerable"]:
            continue
        texts = {s["n"]: s["text"] for s in next(e for e in events if e["type"] == "sources")[
            "sources"]}  # fmt: skip
        sentences = done["citations"]["sentences"]
        counts = invented_code(done["answer"], done["unsupported"], texts, sentences)
        if done["draft"] is not None:
            draft = invented_code(done["draft"]["answer"], done["draft"]["unsupported"], texts, [])
            counts = {k: counts[k] + draft[k] for k in counts}
        totals["answers"] += 1
        totals["with_invented"] += counts["invented"] > 0
        totals["replaced"] += counts["invented"] > 0 and done["draft"] is not None
        for key in ("invented", "marked", "in_backed"):
            totals[key] += counts[key]
    return totals


def pct(values: list[bool]) -> str:
    return f"{sum(values) / len(values):.2f}" if values else "–"


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, math.ceil(q * len(ordered)) - 1)] if ordered else 0.0


def run_set(name: str, args: argparse.Namespace, work: Path, model: Any) -> dict[str, Any]:
    if name == "sample":
        quire = Quire.open(work / "sample-home")
        quire.index([sample_notes()], embed=EMBED[0])
        answerable = [json.loads(x) for x in SAMPLE_QUESTIONS.read_text("utf-8").splitlines() if x]
        unanswerable: list[dict] = []
        folder = sample_notes()
    else:
        quire, unanswerable, answerable = indexed_without_gold(
            args.eval / name, args.questions, work, EMBED[0]
        )
        folder = work / name / "notes"
    notes: dict[str, str] = {}
    with_gold = name in ("sample", "xquad-en", "xquad-de")
    rows = [evidence_row(quire, q, folder, notes) for q in answerable]
    un_rows = [unanswerable_row(quire, q) for q in unanswerable]
    un_outcomes = [r["outcome"] for r in un_rows]
    SIGNALS.append({"set": name, "answerable": [r["signals"] for r in rows],
                    "unanswerable": [r["signals"] for r in un_rows]})  # fmt: skip
    out: dict[str, Any] = {"set": name, "n": len(rows), "n_un": len(unanswerable)}
    out["answered"] = pct([r["outcome"] == Outcome.ANSWERED for r in rows])
    out["false_refusal"] = pct([r["outcome"] == Outcome.ABSENT for r in rows])
    out["un_caught"] = pct([o != Outcome.ANSWERED for o in un_outcomes])
    out["un_refused"] = pct([o == Outcome.ABSENT for o in un_outcomes])
    secs = [r["seconds"] for r in rows]
    out["evidence_ms"] = (1000 * statistics.median(secs), 1000 * quantile(secs, 0.95))
    if with_gold:
        for key in ("ev1", "ev3", "naive1", "naive3", "top1"):
            out[key] = pct([r[key] for r in rows])
        out["chars"] = shown_length(rows)
    if with_gold and model is not None and args.generate:
        out["gen"] = generation(quire, model, answerable[: args.generate], args.max_tokens)
    quire.close()
    return out


def generation(quire: Quire, model: Any, questions: list[dict], max_tokens: int) -> dict:
    ours = [quire_answer(quire, model, q, max_tokens) for q in questions]
    naive = [naive_answer(quire, model, q, max_tokens) for q in questions]
    answered = [r for r in ours if not r["refused"]]
    precision = [p for r in answered for p in r["precision"]]
    caught = sum(r["figures"][0] for r in answered)
    invented = sum(r["figures"][1] for r in answered)
    q_ttft = [r["ttft"] for r in answered if r["ttft"] is not None]
    n_ttft = [r["ttft"] for r in naive if r["ttft"] is not None]
    return {
        "n": len(questions), "quire_contains": pct([r["contains"] for r in ours]),
        "naive_contains": pct([r["contains"] for r in naive]),
        "model_contains": pct([r.get("model_contains", False) for r in ours]),
        "backed": pct([r["backed"] for r in answered]),
        "valid_citation": pct([r["valid"] for r in answered]),
        "citation_precision": pct(precision), "figures": f"{caught}/{invented}",
        "ttft": (statistics.median(q_ttft) if q_ttft else 0.0,
                 statistics.median(n_ttft) if n_ttft else 0.0),
        "prompt_tokens": (statistics.median(r["prompt_tokens"] for r in answered) if answered
                          else 0, statistics.median(r["prompt_tokens"] for r in naive)),
    }  # fmt: skip


def shown_length(rows: list[dict[str, Any]]) -> str:
    """Mean characters quoted by the (up to) three shown units, and of the top-1 passage: what
    evidence@3 and the passage ceiling each get to show."""
    quoted = statistics.mean(r["chars"] for r in rows) if rows else 0.0
    top1 = statistics.mean(r["top1_chars"] for r in rows) if rows else 0.0
    return f"{quoted:.0f} / {top1:.0f}"


def print_spans(r: dict[str, Any]) -> None:
    print("\n| set | questions | evidence@1 (span) | evidence@3 (span) | retrieval top-1 passage "
          "(span) | code unit first | link-only units shown | characters quoted / top-1 passage "
          "|")  # fmt: skip
    print("|---|---|---|---|---|---|---|---|")
    print(f"| til-en | {r['n']} | {r['ev1']} | {r['ev3']} | {r['top1']} | {r['code_first']} | "
          f"{r['link_only']} of {r['shown']} | {r['chars']} |")  # fmt: skip
    c = r.get("commands")
    if c:
        print("\n| answers | with an invented command | of them replaced by the quoted evidence | "
              "invented code spans | marked | in a backed sentence |")  # fmt: skip
        print("|---|---|---|---|---|---|")
        print(f"| {c['answers']} | {c['with_invented']} | {c['replaced']} | {c['invented']} | "
              f"{c['marked']} | {c['in_backed']} |")  # fmt: skip


def print_tables(rows: list[dict[str, Any]]) -> None:
    print(
        "\n| set | questions | evidence@1 | evidence@3 | naive sentences @1 / @3 | top-1 passage "
        "holds answer | characters quoted / top-1 passage | time to evidence p50 / p95 |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        if "ev1" in r:
            print(f"| {r['set']} | {r['n']} | {r['ev1']} | {r['ev3']} | {r['naive1']} / "
                  f"{r['naive3']} | {r['top1']} | {r['chars']} | {r['evidence_ms'][0]:.0f} / "
                  f"{r['evidence_ms'][1]:.0f} ms |")  # fmt: skip
    print(
        "\n| set | answerable: answered without caution | answerable: 'not in your notes' | "
        "unanswerable: refused or cautioned | unanswerable: refused | questions |"
    )
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['set']} | {r['answered']} | {r['false_refusal']} | {r['un_caught']} | "
              f"{r['un_refused']} | {r['n']} + {r['n_un']} |")  # fmt: skip
    gen = [r for r in rows if "gen" in r]
    if gen:
        print(
            "\n| set | generated | answer holds gold: Quire / naive RAG | the model's own "
            "answer holds gold | backed by the notes | valid citation | "
            "citation precision | invented figures marked | first token Quire / naive | "
            "prompt tokens Quire / naive |"
        )
        print("|---|---|---|---|---|---|---|---|---|---|")
    for r in gen:
        g = r["gen"]
        print(f"| {r['set']} | {g['n']} | {g['quire_contains']} / {g['naive_contains']} | "
              f"{g['model_contains']} | {g['backed']} | "
              f"{g['valid_citation']} | {g['citation_precision']} | {g['figures']} | "
              f"{g['ttft'][0] * 1000:.0f} / {g['ttft'][1] * 1000:.0f} ms | "
              f"{g['prompt_tokens'][0]:.0f} / {g['prompt_tokens'][1]:.0f} |")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--questions", type=int, default=100)
    parser.add_argument("--generate", type=int, default=20)
    parser.add_argument("--max-tokens", type=int, default=64)
    parser.add_argument("--no-embedder-evidence", action="store_true")
    parser.add_argument("--no-embed", action="store_true", help="keyword index only (faster)")
    parser.add_argument("--no-spans", action="store_true", help="skip til-en's whole-folder run")
    parser.add_argument("--spans-only", action="store_true", help="only til-en's whole-folder run")
    parser.add_argument("--eval", type=Path, default=EVAL, help="the eval sets' folder")
    parser.add_argument("--model-cache", type=Path, help="record generations here; replay on rerun")
    parser.add_argument("sets", nargs="*")
    args = parser.parse_args(argv)
    ask.USE_EMBEDDER_FOR_EVIDENCE = not args.no_embedder_evidence
    EMBED[0] = not args.no_embed
    names = args.sets or ["sample", "xquad-en", "xquad-de", "ctkfacts-cs", "til-en"]
    names = ["til-en"] if args.spans_only else names
    model: Any = None
    if args.generate:
        from desktop_app.core.answer.llm import LocalModel

        model = LocalModel(n_ctx=4096)
        if args.model_cache:
            model = RecordedModel(model, args.model_cache)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for name in [] if args.spans_only else names:
            rows.append(run_set(name, args, Path(tmp), model))
            print(json.dumps(rows[-1]), flush=True)
        if "til-en" in names and not args.no_spans:
            spans = til_spans(args, Path(tmp), model)
            print(json.dumps(spans), flush=True)
    print_tables(rows)
    if "til-en" in names and not args.no_spans:
        print_spans(spans)
    if isinstance(model, RecordedModel):
        print(f"generations replayed {model.hits}, generated {model.misses} ({args.model_cache})")
    (Path(tempfile.gettempdir()) / "quire-answer-signals.json").write_text(json.dumps(SIGNALS))
    return 0


if __name__ == "__main__":
    from tests.bench.page import record

    raise SystemExit(record(main, "bench_answers"))
