"""Quire: chat with your own notes, fully offline."""

__version__ = "0.1.0"
