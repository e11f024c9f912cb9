"""The worker processes Quire starts (the extractor, the note readers, the vector worker, the
chat model's): how they start.

A fork server where the system has one (Linux, macOS): a fresh interpreter, never a fork of
the window's threaded process, that imports the workers' modules once; each worker is a fork
of it, ready at once. Elsewhere (Windows), or once the fork server could not start, each worker
is a new interpreter.
"""

from __future__ import annotations

import multiprocessing
import sys
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from multiprocessing.connection import Connection
from typing import Any

# What the fork server imports once for every worker forked from it (the first start decides
# for the whole run): the workers' own modules and the readers the extractor uses.
PRELOADED = (
    "desktop_app.core.answer.chat_worker",
    "desktop_app.core.ingest.analysis_pool",
    "desktop_app.core.ingest.extractor",
    "desktop_app.core.ingest.vector_worker",
    "pypdfium2",
    "docx",
)

FORK_SERVER_FAILED: list[str] = []  # why the fork server could not start, if it could not


def context() -> Any:
    """The fork server's context where there is one and it has not failed, else spawn's."""
    if "forkserver" not in multiprocessing.get_all_start_methods() or FORK_SERVER_FAILED:
        return multiprocessing.get_context("spawn")
    forkserver = multiprocessing.get_context("forkserver")
    forkserver.set_forkserver_preload(list(PRELOADED))
    return forkserver


def warm_up() -> None:
    """Start the fork server now, where there is one, so that it imports the workers' modules
    while this process does other work (a folder's scan) rather than when a worker is wanted.
    A server that cannot start is left for that moment to find and report."""
    chosen = context()
    if chosen.get_start_method() == "forkserver":
        try:
            import multiprocessing.forkserver  # noqa: PLC0415 (POSIX only)

            multiprocessing.forkserver.ensure_running()
        except Exception:  # reported by the first start that needs it
            return


def start(
    context: Any, target: Callable[..., None], args: tuple[Any, ...], name: str, pipes: int = 1
) -> tuple[Any, list[Connection]]:
    """A started worker process (a daemon) running `target(*child_ends, *args)`, and the
    caller's ends of its `pipes` pipes: (process, connections)."""
    ends = [context.Pipe() for _ in range(pipes)]
    children = [child for _, child in ends]
    process = context.Process(target=target, args=(*children, *args), name=name, daemon=True)
    try:
        with lean_main():
            process.start()
    except BaseException:  # e.g. no new process from inside a worker's bootstrap
        for parent, _ in ends:
            parent.close()
        raise
    finally:
        for child in children:
            child.close()
    return process, [parent for parent, _ in ends]


def started(
    target: Callable[..., None], args: tuple[Any, ...], name: str, pipes: int = 1
) -> tuple[Any, list[Connection], str]:
    """A worker started by the fork server, or, when that fails (noted in FORK_SERVER_FAILED),
    as a new interpreter: (process, its pipes, how it started). What spawn raises is the
    caller's to report."""
    chosen = context()
    try:
        process, conns = start(chosen, target, args, name, pipes)
    except Exception as exc:
        if chosen.get_start_method() == "spawn":
            raise
        FORK_SERVER_FAILED.append(f"{type(exc).__name__}: {exc}")
        chosen = context()
        process, conns = start(chosen, target, args, name, pipes)
    return process, conns, chosen.get_start_method()


def stop(process: Any, *conns: Connection | None) -> None:
    """Close the pipes and end the process (killed if still running)."""
    for conn in conns:
        if conn is not None:
            conn.close()
    if process is not None:
        if process.is_alive():
            process.kill()
        process.join(5)


@contextmanager
def lean_main() -> Iterator[None]:
    """Spawn runs the parent's main script again in the child (for the CLI: importing the
    whole app, which delays the worker's start); a worker needs only its module, so it is
    shown an empty main."""
    main = sys.modules["__main__"]
    sys.modules["__main__"] = types.ModuleType("__main__")
    try:
        yield
    finally:
        sys.modules["__main__"] = main
