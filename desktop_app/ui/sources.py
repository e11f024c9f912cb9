"""The sources panel: the passages behind an answer (or a search), cited ones first, unused ones
dimmed, each with its note, heading path, scores and the matching words highlighted."""

from __future__ import annotations

import html

from PySide6.QtCore import QUrl, Signal

from desktop_app.core.api import (
    Passage,
    content_words,
    day_label,
    matching_spans,
    pages_label,
    plain_line,
)
from desktop_app.ui.inert_browser import InertBrowser
from desktop_app.ui.theme import dim_color, mark_color

SNIPPET_CHARS = 260


def snippet_html(text: str, words: list[str], limit: int = SNIPPET_CHARS) -> str:
    """A window of the passage as a reader sees it rendered, around its first matching word,
    matches marked, all escaped."""
    flat = plain_line(text)
    spans = matching_spans(flat, words)
    start = max(0, spans[0][0] - limit // 3) if spans else 0
    end = min(len(flat), start + limit)
    out, pos = [], start
    for a, b in spans:
        if a < start or b > end:
            continue
        out.append(html.escape(flat[pos:a]))
        out.append(f'<span style="background:{mark_color()}">{html.escape(flat[a:b])}</span>')
        pos = b
    out.append(html.escape(flat[pos:end]))
    return ("…" if start else "") + "".join(out) + ("…" if end < len(flat) else "")


class SourcesPanel(InertBrowser):
    source_clicked = Signal(object)  # the Passage to open in its note

    def __init__(self) -> None:
        super().__init__(openLinks=False)
        self.setAccessibleName("Sources")
        self.sources: list[Passage] = []
        self.answerable = True
        self.cited: set[int] | None = None
        self.anchorClicked.connect(self._clicked)

    def show_sources(
        self, sources: list[Passage], answerable: bool = True, cited: set[int] | None = None
    ) -> None:
        self.sources, self.answerable, self.cited = sources, answerable, cited
        self._render()

    def refresh(self) -> None:
        self._render()

    def mark_cited(self, cited: set[int]) -> None:
        self.cited = cited
        self._render()

    def _ordered(self) -> list[Passage]:
        cited = self.cited
        if not cited:
            return self.sources
        return sorted(self.sources, key=lambda s: s.number not in cited)  # stable: cited first

    def _render(self) -> None:
        dim = dim_color()
        parts = []
        if not self.answerable:
            parts.append("<p><b>Not in your notes</b> — the closest passages:</p>")
        for s in self._ordered():
            where = " › ".join(s.heading_path) or s.title or s.path
            unused = bool(self.cited) and s.number not in (self.cited or ())
            style = f' style="color:{dim}"' if unused else ""
            at = pages_label(s.page, s.page_end) or f"lines {s.line_start}–{s.line_end}"
            written = f"{day_label(s.day)} · " if s.day else ""
            tags = " ".join(f"#{t}" for t in s.tags)
            where_in = f"{written}{s.path} · {at}" + (f" · {tags}" if tags else "")
            if self.answerable:
                scores = f"score {s.score:.3f} · {where_in}"
            else:  # a refusal's scores would read as confidence: say what matched instead
                content = content_words(s.matched)
                shared = ", ".join(content) or "no content word of the question"
                scores = f"shares: {shared} · {where_in}"
            parts.append(
                f"<p{style}><a href='quire:source/{s.number}'><b>[{s.number}]</b> "
                f"{html.escape(where)}</a>{' (not cited)' if unused else ''}<br>"
                f"<small style='color:{dim}'>{html.escape(scores)}</small><br>"
                f"{snippet_html(s.text, s.matched)}</p>"
            )
        if not self.sources:
            parts.append(f"<p style='color:{dim}'>Passages behind an answer appear here.</p>")
        self.setHtml("".join(parts))

    def passage(self, number: int) -> Passage | None:
        return next((s for s in self.sources if s.number == number), None)

    def _clicked(self, url: QUrl) -> None:
        if url.scheme() == "quire" and url.path().startswith("source/"):
            found = self.passage(int(url.path().split("/")[1]))
            if found is not None:
                self.source_clicked.emit(found)
