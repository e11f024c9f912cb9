#!/usr/bin/env bash
# The llama.cpp wheel the installers ship: runtime CPU dispatch (GGML_BACKEND_DL) over a chosen
# set of x86 CPU levels, each its own libggml-cpu-<level>; ggml loads the best one at start-up.
#
#   packaging/build_llama.sh VERSION OUT_DIR [PYTHON]
#   LLAMA_TARGET=win_amd64 packaging/build_llama.sh VERSION OUT_DIR [PYTHON]
#
# LLAMA_TARGET=win_amd64 cross-compiles the same build for Windows with mingw-w64 on Linux
# (packaging/windows/cross_llama.sh) and packs it as a win_amd64 wheel.
#
# ggml's GGML_CPU_ALL_VARIANTS builds 14 x86 levels: 413 objects to compile, 236 with the 7 kept here
# (the dropped ones are one instruction set away from a kept neighbour, which runs on them):
#   x64 (any x86-64), sse42, sandybridge (AVX), haswell (AVX2+FMA: most CPUs since 2013,
#   AMD Zen 1-3), skylakex (AVX-512), icelake (AVX-512 VNNI, AMD Zen 4-5), alderlake (AVX-VNNI).
# The multimodal (llava/mtmd) library is not built: Quire never loads it. The wheel must hold
# libggml-cpu-<level> for each level (checked at the end).
set -euo pipefail
version=$1
out=$2
python=${3:-python3}
keep="x64 sse42 sandybridge haswell skylakex icelake alderlake"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$python" -m pip download --quiet --no-deps --no-binary :all: "llama-cpp-python==$version" -d "$work"
tar xzf "$work/llama_cpp_python-$version.tar.gz" -C "$work"
src="$work/llama_cpp_python-$version"
cmake_list="$src/vendor/llama.cpp/ggml/src/CMakeLists.txt"

# Comment out every x86 variant not kept (other architectures' lists are left alone).
"$python" - "$cmake_list" "$keep" "$src/CMakeLists.txt" <<'PY'
import re, sys
path, keep, package_list = sys.argv[1], sys.argv[2].split(), sys.argv[3]
x86 = ("x64 sse42 sandybridge ivybridge piledriver haswell skylakex cannonlake cascadelake "
       "icelake cooperlake zen4 alderlake sapphirerapids").split()
call = re.compile(r"^(\s*)(ggml_add_cpu_backend_variant\((\w+)\b.*)$", re.M)
text = call.sub(lambda m: m[0] if m[3] not in x86 or m[3] in keep
                else f"{m[1]}# dropped by Quire: {m[2]}", open(path).read())
kept = [m[3] for m in call.finditer(text) if m[3] in x86]
if sorted(kept) != sorted(keep):
    sys.exit(f"build_llama: kept {kept}, expected {keep}")
open(path, "w").write(text)
# llama-cpp-python installs only ggml-cpu into its package; install every variant beside it.
install = "llama_cpp_python_install_target(ggml-cpu)"
package_text = open(package_list).read()
if install not in package_text:
    sys.exit(f"build_llama: {install} not found in {package_list}")
variants = "\n".join(f"    llama_cpp_python_install_target(ggml-cpu-{v})" for v in keep)
open(package_list, "w").write(package_text.replace(install, f"{install}\n{variants}", 1))
PY

cmake_args=(-DGGML_NATIVE=OFF -DGGML_BACKEND_DL=ON -DGGML_CPU_ALL_VARIANTS=ON -DLLAMA_CURL=OFF -DLLAVA_BUILD=OFF)
if [ "${LLAMA_TARGET:-}" = win_amd64 ]; then
    "$(dirname "$0")/windows/cross_llama.sh" "$src" "$out" "$python" "${cmake_args[@]}"
    wheel=$(ls "$out"/llama_cpp_python-"$version"-*-win_amd64.whl)
else
    # EXTRA_CMAKE_ARGS: e.g. -DCMAKE_OSX_ARCHITECTURES=x86_64 on an Intel Mac runner.
    CMAKE_ARGS="${cmake_args[*]} ${EXTRA_CMAKE_ARGS:-}" \
      "$python" -m pip wheel --quiet --no-cache-dir --no-deps "$src" -w "$out"
    wheel=$(ls "$out"/llama_cpp_python-"$version"-*.whl)
fi
found=$("$python" -c 'import sys, zipfile; print(sum("ggml-cpu-" in n for n in zipfile.ZipFile(sys.argv[1]).namelist()))' "$wheel")
[ "$found" -ge 7 ] || { echo "build_llama: $wheel holds $found CPU variants" >&2; rm -f "$wheel"; exit 1; }
