"""ggml's backend functions are looked up in the library that exports them on each platform."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from desktop_app.core.answer.backends import DEFINED_IN, load_cpu_backend, registered_backends

# What a lookup in each library of a llama.cpp build finds, per platform. A Windows DLL exports
# only what it defines (objdump -p ggml.dll); dlsym on Linux and macOS also searches the
# libraries it links, so libggml finds ggml-base's functions too.
_GGML = {"ggml_backend_reg_count", "ggml_backend_reg_get", "ggml_backend_load_all_from_path"}
_GGML_BASE = {"ggml_backend_reg_name"}
EXPORTS = {
    "win32": {"ggml": _GGML, "ggml-base": _GGML_BASE},
    "linux": {"ggml": _GGML | _GGML_BASE},
    "darwin": {"ggml": _GGML | _GGML_BASE},
}


class _Function:
    def __init__(self, name: str) -> None:
        self.name = name
        self.argtypes: list[Any] = []
        self.restype: Any = None

    def __call__(self, *args: Any) -> Any:
        registry = {0: b"CPU", 1: b"BLAS"}
        if self.name == "ggml_backend_reg_count":
            return len(registry)
        if self.name == "ggml_backend_reg_get":
            return args[0]
        return registry[args[0]]


class _Library:
    """A loaded library as ctypes shows it: a missing export is an AttributeError."""

    def __init__(self, exports: set[str]) -> None:
        self._exports = exports

    def __getattr__(self, name: str) -> _Function:
        if name not in self._exports:
            raise AttributeError(f"function '{name}' not found")
        return _Function(name)


@pytest.mark.parametrize("platform", sorted(EXPORTS))
def test_each_function_comes_from_the_library_that_exports_it(platform: str) -> None:
    libraries = {name: _Library(exports) for name, exports in EXPORTS[platform].items()}
    assert registered_backends(libraries, platform) == ["CPU", "BLAS"]


def _defined(library: Path) -> set[str]:
    symbols = subprocess.run(
        ["nm", "-D", "--defined-only", str(library)], capture_output=True, text=True, check=True
    ).stdout
    return {line.split()[-1] for line in symbols.splitlines() if line.strip()}


def test_the_table_matches_the_real_linux_libraries() -> None:
    import llama_cpp

    lib_dir = Path(llama_cpp.__file__).resolve().parent / "lib"
    for function, library in DEFINED_IN.items():
        defined = _defined(lib_dir / f"lib{library}.so")
        assert function in defined, (function, library)
        other = "ggml-base" if library == "ggml" else "ggml"
        assert function not in _defined(lib_dir / f"lib{other}.so"), (function, other)
    assert "CPU" in load_cpu_backend()  # the real library, through the same lookups
