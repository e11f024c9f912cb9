"""The typed answer events, index status and search results as JSON: what `quire ask --json`,
`quire status --json` and `quire search --json` print (a fixed interface: keys, values and their
order), and the citation report a saved conversation keeps."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from desktop_app.core import events as ev
from desktop_app.core.passage import pages_json
from desktop_app.core.retrieval.search import SearchResult
from desktop_app.core.store.status import FileStatus, IndexStatus, Integrity

JsonDict = dict[str, Any]  # JSON, read by key only by who parses what the CLI prints


def as_json(value: ev.AnswerEvent | IndexStatus | SearchResult) -> JsonDict:
    """One `quire ask --json` line (an event), the `quire status --json` document, or one
    result of `quire search --json`."""
    match value:
        case ev.SourcesFound():
            return _sources_json(value)
        case ev.EvidenceShown():
            return {
                "type": "evidence",
                "outcome": str(value.outcome),
                "caution": value.caution,
                "evidence": [e.to_json() for e in value.evidence],
                "seconds": value.seconds,
            }
        case ev.Token():
            return {"type": "token", "text": value.text}
        case ev.Done():
            return _done_json(value)
        case ev.Error():
            return {"type": "error", "message": value.message}
        case IndexStatus():
            return _status_json(value)
        case SearchResult():
            return _search_result_json(value)


def _sources_json(event: ev.SourcesFound) -> JsonDict:
    data: JsonDict = {
        "type": "sources",
        "answerable": event.answerable,
        "outcome": str(event.outcome),
        "gate": _gate_json(event.gate),
        "sources": [s.to_json() for s in event.sources],
    }
    if event.answerable:
        data["dropped_sources"] = event.dropped_sources
        data["dropped_turns"] = event.dropped_turns
        data["notices"] = event.notices
    return data


def _gate_json(gate: ev.GateVerdict) -> JsonDict:
    return {
        "answerable": gate.answerable,
        "outcome": str(gate.outcome),
        "reason": gate.reason,
        "missing": gate.missing,
        "coverage": gate.coverage,
        "cosine": gate.cosine,
    }


def _done_json(done: ev.Done) -> JsonDict:
    data: JsonDict = {
        "type": "done",
        "answer": done.answer,
        "answerable": done.answerable,
        "citations": citations_json(done.citations),
        "stopped": done.stopped,
        "timings": _timings_json(done.timings),
    }
    added = [_added_json(a) for a in done.added_citations]
    unsupported = [unfound_json(u) for u in done.unsupported]
    if done.reason is not None:  # a refusal
        return {
            **data,
            "outcome": str(done.outcome),
            "reason": done.reason,
            "unsupported": unsupported,
            "added_citations": added,
            "marked_answer": done.marked_answer,
            "caution": done.caution,
        }
    quote = None if done.quote is None else done.quote.to_json()
    return {
        **data,
        "added_citations": added,
        "unsupported": unsupported,
        "marked_answer": done.marked_answer,
        "generated": done.generated,
        "outcome": str(done.outcome),
        "caution": done.caution,
        "backed": done.draft is None,
        "draft": None if done.draft is None else _draft_json(done.draft),
        "quote": quote,
        "declined": done.declined,
        "offer": done.offer,
    }


def citations_json(citations: ev.Citations) -> JsonDict:
    return {
        "valid": citations.valid,
        "invalid": citations.invalid,
        "sentences": [_sentence_json(s) for s in citations.sentences],
    }


def _sentence_json(s: ev.CitedSentence) -> JsonDict:
    return asdict(s)  # the keys are the fields, in their order


def _added_json(added: ev.AddedCitation) -> JsonDict:
    return {"sentence": added.sentence, "n": added.number, "support": added.support}


def unfound_json(unfound: ev.Unfound) -> JsonDict:
    return asdict(unfound)  # text, start, end, kind


def _draft_json(draft: ev.Draft) -> JsonDict:
    return {
        "answer": draft.answer,
        "added_citations": [_added_json(a) for a in draft.added_citations],
        "unsupported": [unfound_json(u) for u in draft.unsupported],
        "marked_answer": draft.marked_answer,
        "replaced": str(draft.replaced),
        "problems": draft.problems,
    }


def _timings_json(t: ev.Timings) -> JsonDict:
    data: JsonDict = {
        "retrieval_seconds": t.retrieval_seconds,
        "prompt_tokens": t.prompt_tokens,
        "completion_tokens": t.completion_tokens,
        "first_token_seconds": t.first_token_seconds,
        "tokens_per_second": t.tokens_per_second,
    }
    if t.evidence_seconds is not None:
        data["evidence_seconds"] = t.evidence_seconds
    return data


def _status_json(status: IndexStatus) -> JsonDict:
    return {
        "database": status.database,
        "embedding_model": status.embedding_model,
        "counts": asdict(status.counts),
        "migrations": status.migrations,
        "integrity": None if status.integrity is None else _integrity_json(status.integrity),
        "files": None if status.files is None else [_file_json(f) for f in status.files],
        "recovery": None if status.recovery is None else status.recovery.record,
        "companion_model": status.companion_model,  # added after the others: keys keep order
    }


def _integrity_json(i: Integrity) -> JsonDict:
    return {**asdict(i), "ok": i.ok}


def _file_json(f: FileStatus) -> JsonDict:
    return {**asdict(f), "status": str(f.status)}  # the key keeps its place


def _search_result_json(r: SearchResult) -> JsonDict:
    return {
        "path": r.path,
        "start": r.start,
        "end": r.end,
        "score": r.score,
        "text": r.text,
        "title": r.title,
        "heading_path": list(r.heading_path),
        "lines": [r.line_start, r.line_end],
        "matched_terms": list(r.matched_terms),
        "folder": r.folder,
        **pages_json(r.page, r.page_end),
        "day": r.day,
    }
