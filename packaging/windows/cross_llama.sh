#!/usr/bin/env bash
# Cross-compile a llama-cpp-python source tree for Windows x64 with mingw-w64 and pack it as a
# win_amd64 wheel (llama-cpp-python publishes none). Called by packaging/build_llama.sh with
# LLAMA_TARGET=win_amd64, after it has chosen the CPU variants.
#
#   packaging/windows/cross_llama.sh SRC_DIR OUT_DIR PYTHON CMAKE_ARG...
#
# posix-threads mingw (std::thread); libgcc, libstdc++ and winpthread are linked statically, so
# the DLLs need nothing from Windows but its own system libraries and the UCRT-free msvcrt.
set -euo pipefail
src=$1
out=$2
python=$3
shift 3
build="$src/build-win"

# mingw-w64 12's headers lack THREAD_POWER_THROTTLING_STATE (Windows SDK 8+); ggml uses it to
# keep Windows 11 from parking its threads. Declare it where ggml uses it.
cpu_c="$src/vendor/llama.cpp/ggml/src/ggml-cpu/ggml-cpu.c"
"$python" - "$cpu_c" <<'PY'
import sys
path = sys.argv[1]
text = open(path).read()
guard = "#if _WIN32_WINNT >= 0x0602\n        THREAD_POWER_THROTTLING_STATE t;"
if guard not in text:
    sys.exit(f"cross_llama: {guard!r} not found in {path}")
compat = (
    "#if _WIN32_WINNT >= 0x0602\n"
    "        #ifndef THREAD_POWER_THROTTLING_CURRENT_VERSION\n"
    "        typedef struct { ULONG Version; ULONG ControlMask; ULONG StateMask; }"
    " THREAD_POWER_THROTTLING_STATE;\n"
    "        #define THREAD_POWER_THROTTLING_CURRENT_VERSION 1\n"
    "        #define THREAD_POWER_THROTTLING_EXECUTION_SPEED 0x1\n"
    "        #endif\n"
    "        THREAD_POWER_THROTTLING_STATE t;"
)
open(path, "w").write(text.replace(guard, compat, 1))
PY

# --exclude-libs: the runtime linked into one DLL is not exported from it (each links its own).
static="-static -static-libgcc -static-libstdc++ -Wl,--exclude-libs,ALL"
if ! { cmake -S "$src" -B "$build" -G Ninja -Wno-dev \
    -DCMAKE_SYSTEM_NAME=Windows -DCMAKE_SYSTEM_PROCESSOR=AMD64 \
    -DCMAKE_C_COMPILER=x86_64-w64-mingw32-gcc-posix \
    -DCMAKE_CXX_COMPILER=x86_64-w64-mingw32-g++-posix \
    -DCMAKE_RC_COMPILER=x86_64-w64-mingw32-windres \
    -DCMAKE_FIND_ROOT_PATH=/usr/x86_64-w64-mingw32 \
    -DCMAKE_BUILD_TYPE=Release -DGGML_OPENMP=OFF -DLLAMA_BUILD_TESTS=OFF \
    -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_SERVER=OFF \
    -DCMAKE_SHARED_LINKER_FLAGS="$static" -DCMAKE_MODULE_LINKER_FLAGS="$static" \
    -DCMAKE_EXE_LINKER_FLAGS="$static" \
    -DSKBUILD_PLATLIB_DIR="$build/platlib" "$@" \
  && cmake --build "$build" -j "$(nproc)" && cmake --install "$build"; } >"$build.log" 2>&1
then
    tail -40 "$build.log" >&2
    exit 1
fi

x86_64-w64-mingw32-strip --strip-unneeded "$build"/platlib/llama_cpp/lib/*.dll

# The wheel: the Python package from the source tree and the DLLs (no import libraries).
"$python" - "$src" "$build/platlib/llama_cpp/lib" "$out" <<'PY'
import base64, hashlib, re, sys, zipfile
from pathlib import Path

src, lib, out = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
meta = (src / "PKG-INFO").read_text("utf-8")
version = re.search(r"^Version: (.+)$", meta, re.M)[1]
dist_info = f"llama_cpp_python-{version}.dist-info"
files = {
    f"llama_cpp/{p.relative_to(src / 'llama_cpp').as_posix()}": p.read_bytes()
    for p in sorted((src / "llama_cpp").rglob("*"))
    if p.is_file() and "lib" not in p.relative_to(src / "llama_cpp").parts[:1]
    and "__pycache__" not in p.parts
}
dlls = sorted(lib.glob("*.dll"))
if not dlls:
    sys.exit(f"cross_llama: no DLL in {lib}")
files.update({f"llama_cpp/lib/{p.name}": p.read_bytes() for p in dlls})
files[f"{dist_info}/METADATA"] = meta.encode()
files[f"{dist_info}/WHEEL"] = (
    "Wheel-Version: 1.0\nGenerator: quire cross_llama.sh\nRoot-Is-Purelib: false\n"
    "Tag: py3-none-win_amd64\n"
).encode()
record = []
for name, data in files.items():
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    record.append(f"{name},sha256={digest},{len(data)}")
record.append(f"{dist_info}/RECORD,,")
out.mkdir(parents=True, exist_ok=True)
wheel = out / f"llama_cpp_python-{version}-py3-none-win_amd64.whl"
with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as zf:
    for name, data in files.items():
        info = zipfile.ZipInfo(name, date_time=(2020, 1, 1, 0, 0, 0))
        info.external_attr = 0o644 << 16
        zf.writestr(info, data, zipfile.ZIP_DEFLATED)
    zf.writestr(f"{dist_info}/RECORD", "\n".join(record) + "\n")
print(f"cross_llama: {wheel.name}: {len(dlls)} DLLs, {wheel.stat().st_size / 2**20:.1f} MiB")
PY
