"""llama_cpp loads libllama / libggml (and, in a GGML_BACKEND_DL build, every
libggml-cpu-<level> variant) with ctypes from llama_cpp/lib: PyInstaller cannot see them."""

from PyInstaller.utils.hooks import collect_data_files, collect_dynamic_libs

binaries = collect_dynamic_libs("llama_cpp")  # stays in llama_cpp/lib, where llama_cpp looks
datas = collect_data_files("llama_cpp")
