"""`quire models`: the GGUF chat models found on this computer, and `quire models download`."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from desktop_app.cli.progress import ProgressBar
from desktop_app.core.api import (
    CATALOG,
    DownloadError,
    FoundModel,
    ModelFileError,
    bundled_chat_model_path,
    describe,
    download_entry,
    downloads_dir,
    find_entry,
    find_models,
)
from desktop_app.settings import Settings


def _size(n: int) -> str:
    if n < 1e6:
        return f"{n / 1e3:.0f} KB"
    return f"{n / 1e9:.1f} GB" if n >= 1e8 else f"{n / 1e6:.0f} MB"


def cmd_models(args: argparse.Namespace) -> int:
    if args.models_command == "download":
        return _download(args)

    settings = Settings.load()
    home = Path(args.home).expanduser() if args.home else None
    scan = find_models(home=home, extra=settings.model_folders, downloads=downloads_dir())
    models = [*_bundled(scan.ram_bytes), *scan.models]
    in_use = settings.chat_model or (str(models[0].path) if models else "")
    if args.json:
        print(
            json.dumps(
                {
                    "ram_bytes": scan.ram_bytes,
                    "current": in_use,
                    "models": [m.to_json() for m in models],
                    "skipped": [{"path": p, "reason": r} for p, r in scan.problems],
                },
                ensure_ascii=False,
                indent=2,
            )
        )
        return 0
    ram = f"{_size(scan.ram_bytes)} RAM" if scan.ram_bytes else "RAM unknown"
    print(f"{len(models)} chat model(s) found ({ram}); * = the one in use")
    for m in models:
        mark = "*" if str(m.path) == in_use else " "
        fit = {True: "fits", False: "too big", None: "?"}[m.fits]
        writes = " ".join(settings.languages_of(m.path) or ()) or m.writes
        print(
            f"{mark} {m.name}  [{m.source}]  {_size(m.size_bytes)}  {m.quantization}  "
            f"ctx {m.context_length}  {fit} (needs ~{_size(m.needed_bytes)})  writes {writes}"
        )
        print(f"    {m.path}")
    for path, reason in scan.problems:
        print(f"  skipped: {path}: {reason}")
    print("Use one: Settings → Models in the window, or `quire ask --model PATH`.")
    return 0


def _bundled(ram_bytes: int | None) -> list[FoundModel]:
    """The chat model that comes with Quire, when it is installed."""
    try:
        return [describe(bundled_chat_model_path(), "bundled with Quire", ram_bytes)]
    except ModelFileError:
        return []


def _download(args: argparse.Namespace) -> int:

    if not args.name:
        for e in CATALOG:
            print(f"{e.key:22} {e.kind:9} ~{_size(e.approx_bytes):>7}  {e.licence}  {e.name}")
        return 0
    try:
        entry = find_entry(args.name)
    except KeyError as exc:
        print(f"quire: {exc.args[0]}", file=sys.stderr)
        return 2
    bar = ProgressBar()
    try:
        path = download_entry(entry, downloads_dir(), progress=bar, timeout=args.timeout)
    except DownloadError as exc:
        print(f"\nquire: {exc}", file=sys.stderr)
        return 1
    finally:
        bar.close()
    print(f"saved {path}")
    return 0


def add_parser(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("models", help="GGUF chat models found on this computer; download one")
    p.add_argument("--json", action="store_true")
    p.add_argument("--home", help="look for other apps' models under this home folder instead")
    verbs = p.add_subparsers(dest="models_command")
    d = verbs.add_parser("download", help="download a model from Quire's short list")
    d.add_argument("name", nargs="?", help="a name from the list (without it: show the list)")
    d.add_argument("--timeout", type=float, default=30.0, help="seconds without data (30)")
