"""Entry point of the frozen executables (`quire`, `Quire`, `quire-cli`): the normal CLI."""

import multiprocessing
import sys

from desktop_app.cli import main

if __name__ == "__main__":
    multiprocessing.freeze_support()  # a library that spawns workers must not rerun the app
    sys.exit(main())
