"""The `quire` command line: one module per verb family (`index` and `watch`, `search`,
`ask`, `eval`, `status`, `repair`, `models`, `--self-test`); `entry` reads the arguments and
runs the verb."""

from desktop_app.cli.entry import main

__all__ = ["main"]
