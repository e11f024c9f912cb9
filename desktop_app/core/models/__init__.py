"""Chat and embedding models beyond the bundled ones: find the GGUF files already on this
computer (`finder`), estimate whether they fit in memory (`memory`), and download one from a
short curated list (`catalog`, `download`) only when the user asks for it."""
