"""Import the heavy libraries (torch, sentence-transformers, llama.cpp) without freezing the
window, whichever thread needs them first.

Two things hold Python's GIL for hundreds of milliseconds during these imports, which stalls
every other thread, the GUI's included: the dynamic loader mapping big shared libraries (CPython
calls dlopen with the GIL held) and full garbage collections over the millions of objects the
imports create. So the libraries' shared objects are first mapped through a plain foreign call
(ctypes releases the GIL around it), and the imports run with the collector paused; the objects
they created are then frozen out of future collections (they live as long as the process).
"""

from __future__ import annotations

import contextlib
import ctypes
import gc
import importlib
import os
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from importlib.util import find_spec
from pathlib import Path
from types import ModuleType
from typing import Any

_LOCK = threading.RLock()
_PRELOADED: set[str] = set()
# Packages whose shared objects are mapped ahead of their import, per top-level module.
SHARED_OBJECTS = {
    "sentence_transformers": ("torch", "numpy", "scipy", "sklearn", "tokenizers", "safetensors"),
    "llama_cpp": ("llama_cpp",),
}


def _loader() -> Callable[..., Any] | None:
    """dlopen / LoadLibraryW as a foreign function: calling it releases the GIL."""
    if sys.platform == "win32":
        load = ctypes.windll.kernel32.LoadLibraryW  # type: ignore[attr-defined]
        load.argtypes, load.restype = [ctypes.c_wchar_p], ctypes.c_void_p
        return load
    try:
        dlopen = ctypes.CDLL(None).dlopen
    except (OSError, AttributeError):
        return None
    dlopen.argtypes, dlopen.restype = [ctypes.c_char_p, ctypes.c_int], ctypes.c_void_p
    return dlopen


def _shared_objects(package: str) -> list[Path]:
    spec = find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return []
    root = Path(next(iter(spec.submodule_search_locations)))
    patterns = ("*.dll", "*.pyd") if sys.platform == "win32" else ("*.so", "*.so.*", "*.dylib")
    found = {p for pattern in patterns for p in root.rglob(pattern)}
    libs = root.parent / f"{package}.libs"  # auditwheel's vendored dependencies
    if libs.is_dir():
        found |= {p for p in libs.iterdir() if p.is_file()}
    return sorted(found, key=lambda p: p.stat().st_size)


def preload_shared_objects(packages: tuple[str, ...]) -> int:
    """Map the packages' shared objects into the process with the GIL released."""
    load = _loader()
    if load is None:
        return 0
    count = 0
    for package in packages:
        for path in _shared_objects(package):
            if sys.platform == "win32":
                count += bool(load(str(path)))
            else:
                count += bool(load(os.fsencode(path), os.RTLD_NOW | os.RTLD_LOCAL))
    return count


@contextmanager
def collector_paused(freeze: bool = True) -> Iterator[None]:
    """No cyclic garbage collection inside. `freeze`: what was built inside stays for good (an
    import's modules), so later collections leave it out; without it, the work inside builds no
    cycles and frees its objects by reference counting (a note being read)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if freeze:
            gc.freeze()
        if was_enabled:
            gc.enable()


def import_heavy(module: str) -> ModuleType:
    """Import `module` (a key of SHARED_OBJECTS or any module) the gentle way, once."""
    with _LOCK:  # another thread may be halfway through this very import
        if module in sys.modules:
            return sys.modules[module]
        if module not in _PRELOADED:
            _PRELOADED.add(module)
            with contextlib.suppress(OSError):  # only an optimization: the import loads them
                preload_shared_objects(SHARED_OBJECTS.get(module, ()))
        with collector_paused():
            return importlib.import_module(module)
