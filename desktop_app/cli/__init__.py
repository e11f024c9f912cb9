"""The `quire` command line: one module per verb family (`index` and `watch`, `search`,
`ask`, `eval`, `status`, `repair`, `models`, `--self-test`); `entry` reads the arguments and
runs the verb."""

from __future__ import annotations

import sys

# The verbs that read notes: their readers' fork server starts first, importing the readers'
# modules on the second core while this process imports the app.
_READING = ("index", "watch")


def main(argv: list[str] | None = None) -> int:
    words = sys.argv[1:] if argv is None else argv
    if words[:1] and words[0] in _READING:
        from desktop_app.core import processes  # noqa: PLC0415 (before the app's imports)

        processes.warm_up()
    from desktop_app.cli.entry import main as run  # noqa: PLC0415 (after the server starts)

    return run(argv)


__all__ = ["main"]
