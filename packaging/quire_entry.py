"""Entry point of the frozen executables (`quire`, `Quire`, `quire-cli`): the normal CLI."""

import multiprocessing
import sys

if __name__ == "__main__":
    # First: a worker process (PDF extraction) starts this executable again and must not pay
    # for importing the app it does not need.
    multiprocessing.freeze_support()
    from desktop_app.cli import main

    sys.exit(main())
