"""Runtime CPU dispatch for llama.cpp builds made with GGML_BACKEND_DL + GGML_CPU_ALL_VARIANTS.

Such a build ships its CPU code as several `libggml-cpu-<level>` libraries (x64, sse42,
sandybridge, haswell, skylakex, ...) next to `libggml`; ggml scores each against the running
CPU and loads the best. llama-cpp-python does not ask ggml to do so, so this does, once,
before the first model loads. A build with the CPU code linked in has nothing to load.
"""

from __future__ import annotations

import ctypes
import os
import sys
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

_LOCK = threading.Lock()
_PREFIX = "ggml-cpu-" if sys.platform == "win32" else "libggml-cpu-"

# The library that defines each ggml function called here (ggml-backend-reg.cpp is built into
# ggml, ggml-backend.cpp into ggml-base). On Linux and macOS a symbol looked up in libggml is
# found in the libraries it links too; a Windows DLL exports only what it defines itself.
DEFINED_IN = {
    "ggml_backend_reg_count": "ggml",
    "ggml_backend_reg_get": "ggml",
    "ggml_backend_load_all_from_path": "ggml",
    "ggml_backend_reg_name": "ggml-base",
}


def cpu_variants(lib_dir: Path) -> list[Path]:
    return sorted(p for p in lib_dir.glob(f"{_PREFIX}*") if p.suffix in (".so", ".dll", ".dylib"))


def load_cpu_backend() -> list[str]:
    """Load the best CPU variant if this build has variants; returns the registered backends."""
    import llama_cpp

    lib_dir = Path(llama_cpp.__file__).resolve().parent / "lib"
    with _LOCK:
        from llama_cpp._ggml import libggml

        if cpu_variants(lib_dir):
            for instance in _ggml_instances(lib_dir, libggml):
                instance.ggml_backend_reg_count.restype = ctypes.c_size_t
                if instance.ggml_backend_reg_count() == 0:
                    instance.ggml_backend_load_all_from_path.argtypes = [ctypes.c_char_p]
                    instance.ggml_backend_load_all_from_path(str(lib_dir).encode())
        return registered_backends(_libraries(lib_dir, libggml))


def _libraries(lib_dir: Path, libggml: ctypes.CDLL) -> dict[str, ctypes.CDLL]:
    if sys.platform != "win32":
        return {"ggml": libggml}
    from llama_cpp._ctypes_extensions import load_shared_library

    return {"ggml": libggml, "ggml-base": load_shared_library("ggml-base", lib_dir)}


def ggml_function(libraries: Mapping[str, Any], name: str, platform: str = sys.platform) -> Any:
    """The function `name` from the library that exports it on `platform`."""
    library = DEFINED_IN[name] if platform == "win32" else "ggml"
    return getattr(libraries[library], name)


def _ggml_instances(lib_dir: Path, first: ctypes.CDLL) -> list[ctypes.CDLL]:
    """Every loaded copy of libggml. A wheel cannot hold symlinks, so libggml.so, .so.0 and
    .so.0.x are three files (and PyInstaller adds a fourth beside the executable, which
    libllama then links through LD_LIBRARY_PATH): llama_cpp's ctypes loads one, libllama
    another, and each keeps its own backend registry ("no backends are loaded" otherwise)."""
    instances = [first]
    if sys.platform == "win32":
        return instances
    candidates = sorted({*lib_dir.glob("libggml.*"), *_mapped_ggml_files()})
    for path in candidates:
        try:  # RTLD_NOLOAD: only a copy that is already loaded, never a new one
            loaded = ctypes.CDLL(str(path), mode=os.RTLD_NOLOAD | os.RTLD_GLOBAL)
        except OSError:
            continue
        if all(loaded._handle != known._handle for known in instances):
            instances.append(loaded)
    return instances


def _mapped_ggml_files() -> set[Path]:
    """libggml files mapped into this process, wherever they were loaded from (Linux)."""
    try:
        maps = Path("/proc/self/maps").read_text()
    except OSError:
        return set()
    files = {Path(line.split()[-1]) for line in maps.splitlines() if "/libggml." in line}
    return {f for f in files if f.name.startswith("libggml.")}


def registered_backends(libraries: Mapping[str, Any], platform: str = sys.platform) -> list[str]:
    """The names of the backends ggml has registered (["CPU"], for instance)."""
    count, get, name = (
        ggml_function(libraries, f, platform)
        for f in ("ggml_backend_reg_count", "ggml_backend_reg_get", "ggml_backend_reg_name")
    )
    count.restype = ctypes.c_size_t
    get.argtypes = [ctypes.c_size_t]
    get.restype = ctypes.c_void_p
    name.argtypes = [ctypes.c_void_p]
    name.restype = ctypes.c_char_p
    return [name(get(i)).decode() for i in range(count())]
