"""What tests share: fakes (an embedder, chat models, GGUF files), builders of notes folders
and documents (crafted, hostile, PDFs and Word files, a damaged index), the live index wired
as the app wires it, clicks inside the window, and the one `wait_for`."""
