"""Real, published PDF and HTML documents for bench_real_docs.py, fetched reproducibly.

Every document comes from a pinned Debian bookworm (main) package, downloaded with
`apt-get download NAME=VERSION` (run `apt-get update` once first) into a cache folder and
checked against its SHA-256; the chosen files are taken out of it with `dpkg-deb -x` (gzipped
ones unpacked) and checked against their own SHA-256, then copied into a notes folder laid out
as `pdf/...` and `html/...`. Should Debian replace a pinned version by a newer one in a point
release, the newer package is used only if every file taken from it still has its pinned
SHA-256: the documents, not the packaging, are what the bench needs to stay the same.

Nothing here is tuned to Quire: the documents were chosen for being real manuals, papers,
reference cards and web pages in English (plus German and Czech) under licences that allow
local use (`LICENCES` below, from each package's copyright file).

usage: python tests/bench/real_docs.py [--cache DIR] [--notes DIR]
       (prints the notes folder; default cache ~/.cache/quire-bench/real-docs)
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

CACHE = Path.home() / ".cache" / "quire-bench" / "real-docs"


@dataclass(frozen=True)
class Package:
    name: str
    version: str
    arch: str
    sha256: str  # of the .deb

    @property
    def deb(self) -> str:
        return f"{self.name}_{self.version.split(':')[-1]}_{self.arch}.deb"


@dataclass(frozen=True)
class Doc:
    package: str
    member: str  # path inside the package; `.gz` ones are unpacked
    dest: str  # path in the notes folder
    sha256: str  # of the file as placed in the notes folder


PACKAGES = {p.name: p for p in [
    Package("debian-faq", "11.1", "all",
            "427426e0cfa6888622fc1d72631071cb4b5a1f86ccde722e7820bcef284de5d0"),
    Package("glpk-doc", "5.0-1", "all",
            "2ad3ce3e0efbf906e5874ba1e6fcc8477361e881890e4775f07c92a01c4156df"),
    Package("r-cran-zoo", "1.8-11-1", "amd64",
            "81f27bbee835d9d44d2a410211c813d2da6c2d71f1e37d71b019ab259e182b9b"),
    Package("r-cran-sandwich", "3.0-2-1", "all",
            "a90e7d3c69c70a6d73e4bc63d1f20eae3b4a73866d5266246dd5b3d980c60d79"),
    Package("debian-refcard", "12.0", "all",
            "9cb06051459a8fbefd0a1d0013a6e8b14931ae544402aa9f56f1e77f555cfd1f"),
    Package("sqlite3-doc", "3.40.1-2+deb12u2", "all",
            "466e30d7066e2641fa13e56bc662a2ad521b8cc9c17dde9c9dac3d4f105e32f2"),
    Package("aptitude-doc-en", "0.8.13-5", "all",
            "ba4864ca26464bbe06acd94dc4a79402eea5d7b2d3da943d6ecce3c752bc9e84"),
    Package("aptitude-doc-cs", "0.8.13-5", "all",
            "f59740b663c1606af76a63dcf26073eeeaa3be1a0d658cafe8d242b6ac137143"),
    Package("debian-reference-en", "2.100", "all",
            "9f31d3a17df505de09689ca255512ea58c1fc47c59bb1b0c7bf1c23362e9743f"),
    Package("debian-reference-de", "2.100", "all",
            "3b0ce65fd63e75ddf8eb07ca36293425135080e690a07e06a6ac8bc8040ef0aa"),
    Package("debian-policy", "4.6.2.0", "all",
            "ef9d01b625c3b87c3a845c2cd1b66f1a16e9240b2b9e5bee53472a00e8457a39"),
    Package("developers-reference", "12.18", "all",
            "0dba82f6fa16e373f2a84ad07e7971aa9264ad2e7d2ae46b37edbc9c5fd57e2e"),
    Package("maint-guide", "1.2.53", "all",
            "762c8a400a36668d2eb814a3ba356b06488fd889dfce478eb11d5cfb189a47b5"),
]}  # fmt: skip

LICENCES = {
    "debian-faq": "SPI permission notice (verbatim and modified copies allowed)",
    "glpk-doc": "GFDL-1.3+ without invariant sections (gmpl); GPL-3+ (cnfsat)",
    "r-cran-zoo": "GPL-2+", "r-cran-sandwich": "GPL-2", "debian-refcard": "GPL-3+",
    "sqlite3-doc": "public domain", "aptitude-doc-en": "GPL-2+", "aptitude-doc-cs": "GPL-2+",
    "debian-reference-en": "GPL-2+", "debian-reference-de": "GPL-2+",
    "debian-policy": "GFDL-1.2+ (the FHS 3.0)", "developers-reference": "GPL-2+",
    "maint-guide": "MIT-style (Expat)",
}  # fmt: skip

_FAQ = "usr/share/doc/debian/FAQ"
_GLPK = "usr/share/doc/glpk-doc"
_R = "usr/lib/R/site-library"
_CARD = "usr/share/doc/debian-refcard"
_SQLITE = "usr/share/doc/sqlite3"
_APT = "usr/share/doc/aptitude/html"
_REF = "usr/share/debian-reference"
_MAINT = "usr/share/doc/maint-guide"
_DEVREF = "usr/share/developers-reference"
_FHS = "usr/share/doc/debian-policy/fhs"

DOCS = [
    # PDF: a FAQ manual and a language manual (both with an outline), two papers (Journal of
    # Statistical Software style), a package FAQ, a technical note, a reference card in 3 languages
    Doc("debian-faq", f"{_FAQ}/debian-faq.en.pdf.gz", "pdf/debian-faq.en.pdf",
        "ea67ca925863324d97a30b5c926aed95efc687c689aa16788c9bed54525c0b47"),
    Doc("glpk-doc", f"{_GLPK}/gmpl.pdf", "pdf/glpk/gmpl.pdf",
        "df54ba811d1fe3c041447b575997298d63b0a6366e39454ef2efc382f08203c2"),
    Doc("glpk-doc", f"{_GLPK}/cnfsat.pdf", "pdf/glpk/cnfsat.pdf",
        "87520dcbde789ffad0b31ebcfb1466f1a6401fdf44b6a1790ed1d5105e7cace1"),
    Doc("r-cran-zoo", f"{_R}/zoo/doc/zoo.pdf", "pdf/zoo/zoo.pdf",
        "fd63de7b0dc3122272339ff49e6ceeb47ea71a89a9cb5b7c411c78a7d6c8c332"),
    Doc("r-cran-zoo", f"{_R}/zoo/doc/zoo-faq.pdf", "pdf/zoo/zoo-faq.pdf",
        "10441a849d6dcd7901cdeca635d798ac6171e005a1530693d0228c6550fb6087"),
    Doc("r-cran-sandwich", f"{_R}/sandwich/doc/sandwich-OOP.pdf", "pdf/sandwich/sandwich-OOP.pdf",
        "04599c650db0c916bfe21c3c7c66e3547ef0f1d5be908c3b4759a313a026a1e4"),
    Doc("debian-refcard", f"{_CARD}/refcard-en-a4.pdf.gz", "pdf/refcard/refcard-en-a4.pdf",
        "e876ef5e889cc82835b96a1b32df6a295e41534a1adae69def6d4ad981e38f61"),
    Doc("debian-refcard", f"{_CARD}/refcard-de-a4.pdf.gz", "pdf/refcard/refcard-de-a4.pdf",
        "e788565be0b9db4d22eeb8fb5ee295f7eea869ec1f4d13fa5c42e21febc73971"),
    Doc("debian-refcard", f"{_CARD}/refcard-cs-a4.pdf.gz", "pdf/refcard/refcard-cs-a4.pdf",
        "56fd0282e984163de522814d06f93e953158f69126eba91e3ad19d2a1fde7eab"),
    # HTML: SQLite's site pages (menus, tables of contents), DocBook chapters (navigation
    # tables, admonitions) in English, German and Czech
    Doc("sqlite3-doc", f"{_SQLITE}/autoinc.html", "html/sqlite/autoinc.html",
        "0d816b1766a77d048ac46814cfd573f602bc587399f67346815bfa02f21f1b2c"),
    Doc("sqlite3-doc", f"{_SQLITE}/whentouse.html", "html/sqlite/whentouse.html",
        "4f780133368c5fed82ec3340854f5e1c74e11d4d7388780842f057a6712e69e4"),
    Doc("sqlite3-doc", f"{_SQLITE}/lang_datefunc.html", "html/sqlite/lang_datefunc.html",
        "6b7876e4ac368179ba65d1a78ee1cc56ac4072a0100596fc3abb4acd3107f58f"),
    Doc("sqlite3-doc", f"{_SQLITE}/quirks.html", "html/sqlite/quirks.html",
        "e8a8a6e4045a812b96ecfe45f41d42d412e9e1bfd667fb3ab11d589d02ee136f"),
    Doc("sqlite3-doc", f"{_SQLITE}/wal.html", "html/sqlite/wal.html",
        "6de416a73b7754fd7a752ec04913eb6423d15b387fe6995f6a78bd148657f36f"),
    Doc("aptitude-doc-en", f"{_APT}/en/ch03.html", "html/aptitude/ch03.en.html",
        "76417189417d14a1029eee67eb2a8fab73737852265c791eaca256365fdf7c24"),
    Doc("aptitude-doc-cs", f"{_APT}/cs/ch01s02.html", "html/aptitude/ch01s02.cs.html",
        "4377206ee6d4dc04e7ae874fb7be881bb969c0b466bb788294049d2b636ffb31"),
    Doc("debian-reference-en", f"{_REF}/ch04.en.html", "html/debian-reference/ch04.en.html",
        "fee37e8caeeb3df571d6a469d56c7d493ca1e63ebb014adc2506f01ded356c74"),
    Doc("debian-reference-de", f"{_REF}/ch08.de.html", "html/debian-reference/ch08.de.html",
        "35aee2e3fb760693510d501430193b64523e9106c66b7be799c16e3a838a3012"),
]  # fmt: skip


# The same manual as PDF and as web pages, both shipped in one package (DocBook or Sphinx
# builds of one source; the FHS's PDF and single-page HTML): `pdf/<doc>/...` and
# `html/<doc>/...` in a notes folder of their own, for comparing how each form ranks.
PAIRED = ("faq", "maint", "devref", "fhs")
PAIR_DOCS = [
    Doc("debian-faq", f"{_FAQ}/basic-defs.en.html", "html/faq/basic-defs.en.html",
        "2eddec6dfc904c2274e587a48b1dbf888ee09c668f9d7bf5d70ae3c406b2c822"),
    Doc("debian-faq", f"{_FAQ}/choosing.en.html", "html/faq/choosing.en.html",
        "145fcb9b64ab58d9b58df3539a4d7e9c701c6ee544776fec03c93927afe803e0"),
    Doc("debian-faq", f"{_FAQ}/compatibility.en.html", "html/faq/compatibility.en.html",
        "1440c33ea96cc9458725f7d313b038c8a2cc71599e0243fa6a5ee882456745d1"),
    Doc("debian-faq", f"{_FAQ}/contributing.en.html", "html/faq/contributing.en.html",
        "e0f97e7053deb62ced14eca9b00bf5f9dd7d1c210ea658b66fdba8780e814254"),
    Doc("debian-faq", f"{_FAQ}/customizing.en.html", "html/faq/customizing.en.html",
        "e0454b9519257309e236b5347ce41ec3b61b867ba7b548e3d8c8fa9bf53ffbe1"),
    Doc("debian-faq", f"{_FAQ}/faqinfo.en.html", "html/faq/faqinfo.en.html",
        "89b344ad7a6a8c641d31c3eb78a134cb9dc740fbee5702a35d203f8a8c85bd95"),
    Doc("debian-faq", f"{_FAQ}/ftparchives.en.html", "html/faq/ftparchives.en.html",
        "a6b992af9d5ab6c4e5267af5f4b16ceb599f9d5ba23e1349d1493927c8fc965d"),
    Doc("debian-faq", f"{_FAQ}/getting-debian.en.html", "html/faq/getting-debian.en.html",
        "62f8500b833dacf2e744aef56b6f9443ccd0c22f6c71c252edd0a59aa601fa9e"),
    Doc("debian-faq", f"{_FAQ}/index.en.html", "html/faq/index.en.html",
        "95c0ee96531c793215e1284e69216cf5c75947b8c9f2ab1ca863e375ab66744a"),
    Doc("debian-faq", f"{_FAQ}/kernel.en.html", "html/faq/kernel.en.html",
        "eca6626bc649787581416d22b466c44c91d6fae05b5188f33e83c40a56cc4ac5"),
    Doc("debian-faq", f"{_FAQ}/nextrelease.en.html", "html/faq/nextrelease.en.html",
        "c44bf907db9ad57714440ea969f8ca587b6df786bf1287d0d05c84d070e211c5"),
    Doc("debian-faq", f"{_FAQ}/pkg-basics.en.html", "html/faq/pkg-basics.en.html",
        "736df96913d1270199a80a25cdf27c9bb1d340c4210f91e4204e32d40f75dd56"),
    Doc("debian-faq", f"{_FAQ}/pkgtools.en.html", "html/faq/pkgtools.en.html",
        "5d2f6d576621600d09591d88e96bdc6e994e47c32b1d1ac49154923a279ebe85"),
    Doc("debian-faq", f"{_FAQ}/redistributing.en.html", "html/faq/redistributing.en.html",
        "848f41003dcdf65c5f9d6d48ad8cfd7a64432d2b1b346ee8a992ae6d3f3b5ed0"),
    Doc("debian-faq", f"{_FAQ}/software.en.html", "html/faq/software.en.html",
        "8537fc3eaefa67a3d42d22509d18be4a9a7b051d4a0799aa2ef6834cfe557ee5"),
    Doc("debian-faq", f"{_FAQ}/support.en.html", "html/faq/support.en.html",
        "729fd5eb5b3f6d497a567ff13dfde83cc37fde795009159e8804eaa4faa2cb18"),
    Doc("debian-faq", f"{_FAQ}/uptodate.en.html", "html/faq/uptodate.en.html",
        "939d5e69781cc2718aedb2ba0fb8662cb4d41db2845fafde833ace90f99aa1ef"),
    Doc("maint-guide", f"{_MAINT}/html/advanced.en.html", "html/maint/advanced.en.html",
        "b6f1e8303622b6718c130bb8a783a5baf3a8ee553e67a826df803368fbd3a3b0"),
    Doc("maint-guide", f"{_MAINT}/html/build.en.html", "html/maint/build.en.html",
        "74dd221e091a686d9efeb6ab9d0cec0c2026a16f277f0785c9d06119a12330a4"),
    Doc("maint-guide", f"{_MAINT}/html/checkit.en.html", "html/maint/checkit.en.html",
        "0deabc3b04536177f1b30e6f52cf0e750ef9347154e6e7ba97f9a8526100edda"),
    Doc("maint-guide", f"{_MAINT}/html/dother.en.html", "html/maint/dother.en.html",
        "0806ab755749a0f03c34ecad017ebfb5d4e31c8a59d029de3ef9aad3ddf2161d"),
    Doc("maint-guide", f"{_MAINT}/html/dreq.en.html", "html/maint/dreq.en.html",
        "7bc48545be94806a8e615f9ff25b359cc21aebf4744e6d2ab5fa0082245680ee"),
    Doc("maint-guide", f"{_MAINT}/html/first.en.html", "html/maint/first.en.html",
        "40a3ec8f970237e02532c027761a2b6e2973a06a862716b015f512957f5bbd87"),
    Doc("maint-guide", f"{_MAINT}/html/index.en.html", "html/maint/index.en.html",
        "b688a99c13a268a4fbef053cf9b2ef90dc24377e7b5b58b935b56a322cac9185"),
    Doc("maint-guide", f"{_MAINT}/html/modify.en.html", "html/maint/modify.en.html",
        "0b2e4287cff4f333ae231c601772552cec464766534f891ef61908dd9662ebc0"),
    Doc("maint-guide", f"{_MAINT}/html/start.en.html", "html/maint/start.en.html",
        "eeaa4fd4e969e96361977b9ff3fdf8ce0052260618469e306076bd7e6e947135"),
    Doc("maint-guide", f"{_MAINT}/html/update.en.html", "html/maint/update.en.html",
        "1458457a45ced16df783adf2b77a03c163fa9d411f3828f281682ab2dd20b5bd"),
    Doc("maint-guide", f"{_MAINT}/html/upload.en.html", "html/maint/upload.en.html",
        "333660ef07bce858d7f54a2f04e74069651059d395bf7c23ff1fa8c41e588625"),
    Doc("developers-reference", f"{_DEVREF}/best-pkging-practices.html",
        "html/devref/best-pkging-practices.html",
        "69f66726db9bf21f896dd467fcfc97c56f735c775e87109963fb3fa0c21aad84"),
    Doc("developers-reference", f"{_DEVREF}/beyond-pkging.html", "html/devref/beyond-pkging.html",
        "97412beb41b4298c01d9a15d66f0fd21224ca5092227c9f20f79ab55f6686699"),
    Doc("developers-reference", f"{_DEVREF}/developer-duties.html",
        "html/devref/developer-duties.html",
        "034baef37e43cb5f75f8c0fa01af154acdd413155e58db7b670589ce19e0cb1b"),
    Doc("developers-reference", f"{_DEVREF}/index.html", "html/devref/index.html",
        "43bc6697a2800e878ca00be21a6457d52459df09c90da37fe523d16329e8eb32"),
    Doc("developers-reference", f"{_DEVREF}/l10n.html", "html/devref/l10n.html",
        "9244e65b9db91ffdaaa3d43c22b8a610a92ff8ee68c7b0c31462768ba1b3edec"),
    Doc("developers-reference", f"{_DEVREF}/new-maintainer.html", "html/devref/new-maintainer.html",
        "228f2caaed6502e9304e8e488282d268545bf8a32db847ff84ae9500513dd66d"),
    Doc("developers-reference", f"{_DEVREF}/pkgs.html", "html/devref/pkgs.html",
        "0c7282c52c5b23875aa363b1fe6d9114277198c1f6110c12751c930c32998f2b"),
    Doc("developers-reference", f"{_DEVREF}/resources.html", "html/devref/resources.html",
        "51df7d6a4c39e360ce83bc710bcbcdebd0a193e14210a80f60863d80352bb845"),
    Doc("developers-reference", f"{_DEVREF}/scope.html", "html/devref/scope.html",
        "0f5209f7da4eefb122f1c52c66397eacf8b2cedbaea634589c8849bacc9d9dd4"),
    Doc("developers-reference", f"{_DEVREF}/tools.html", "html/devref/tools.html",
        "8ec19199949dc207bb05d203757e9f1a5860c6dbfef706b5f55a12843f948b69"),
    Doc("debian-policy", f"{_FHS}/fhs-3.0.html", "html/fhs/fhs-3.0.html",
        "05268acaf6ff17aa5f54228967831f2c60f4914ae3101767dcd70acb36cd821c"),
    Doc("developers-reference", f"{_DEVREF}/developers-reference.pdf",
        "pdf/devref/developers-reference.pdf",
        "88e5ac4d15444fd3adb821dc863bd91b820e99a27e65728e74975ab1752652f5"),
    Doc("debian-faq", f"{_FAQ}/debian-faq.en.pdf.gz", "pdf/faq/debian-faq.en.pdf",
        "ea67ca925863324d97a30b5c926aed95efc687c689aa16788c9bed54525c0b47"),
    Doc("maint-guide", f"{_MAINT}/maint-guide.en.pdf", "pdf/maint/maint-guide.en.pdf",
        "0b94abf28167fb3fe59db3d03f99b5faa50d9f6f696a7864825c5d0378ba27ef"),
    Doc("debian-policy", f"{_FHS}/fhs-3.0.pdf.gz", "pdf/fhs/fhs-3.0.pdf",
        "53d239e569a2d7b31a74fa09d585368c0f5a164e4624723fa2894660dd10fd23"),
]  # fmt: skip


class FetchError(RuntimeError):
    pass


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _download(spec: str, folder: Path) -> Path:
    """`apt-get download SPEC` into `folder`; the .deb it wrote."""
    before = set(folder.glob("*.deb"))
    run = subprocess.run(
        ["apt-get", "download", spec], cwd=folder, capture_output=True, text=True, check=False
    )
    new = sorted(set(folder.glob("*.deb")) - before)
    if run.returncode != 0 or not new:
        raise FetchError(
            f"apt-get download {spec} failed (run `apt-get update` first?):\n{run.stderr.strip()}"
        )
    return new[0]


def package_deb(package: Package, cache: Path) -> tuple[Path, bool]:
    """The package's .deb in the cache, downloaded unless present; and whether it is the
    pinned one (its SHA-256 matches) or a newer version whose files must be checked."""
    debs = cache / "debs"
    debs.mkdir(parents=True, exist_ok=True)
    pinned = debs / package.deb
    if pinned.exists() and sha256(pinned) == package.sha256:
        return pinned, True
    pinned.unlink(missing_ok=True)
    try:
        got = _download(f"{package.name}={package.version}", debs)
    except FetchError:  # the pinned version left the archive: a newer one, checked per file
        for stale in debs.glob(f"{package.name}_*.deb"):
            stale.unlink()
        got = _download(package.name, debs)
        print(
            f"note: {package.name} {package.version} is gone from the archive; using "
            f"{got.name}, whose files are checked against their pins",
            file=sys.stderr,
        )
        return got, False
    if sha256(got) != package.sha256:
        got.unlink()
        raise FetchError(f"{got.name}: SHA-256 differs from the pinned one")
    return got, True


def _extract(deb: Path, cache: Path) -> Path:
    tree = cache / "trees" / deb.stem
    if not (tree / ".done").exists():
        shutil.rmtree(tree, ignore_errors=True)
        tree.mkdir(parents=True)
        subprocess.run(["dpkg-deb", "-x", str(deb), str(tree)], check=True)
        (tree / ".done").touch()
    return tree


def fetch(notes: Path | None = None, cache: Path = CACHE, docs: list[Doc] | None = None) -> Path:
    """The notes folder (`cache`/notes unless given) holding every document of `docs`, each
    checked against its SHA-256; downloads only what the cache lacks."""
    notes = notes or cache / "notes"
    docs = DOCS if docs is None else docs
    missing = [
        d for d in docs if not (notes / d.dest).exists() or sha256(notes / d.dest) != d.sha256
    ]
    if not missing:
        return notes
    trees: dict[str, Path] = {}
    for doc in missing:
        if doc.package not in trees:
            deb, _pinned = package_deb(PACKAGES[doc.package], cache)
            trees[doc.package] = _extract(deb, cache)
        source = trees[doc.package] / doc.member
        if not source.is_file():
            raise FetchError(f"{doc.member} is not in {doc.package}")
        data = source.read_bytes()
        if doc.member.endswith(".gz"):
            data = gzip.decompress(data)
        target = notes / doc.dest
        target.parent.mkdir(parents=True, exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=target.parent, delete=False) as tmp:
            tmp.write(data)
        tmp_path = Path(tmp.name)
        if sha256(tmp_path) != doc.sha256:
            tmp_path.unlink()
            raise FetchError(f"{doc.dest} (from {doc.package}): SHA-256 differs from the pin")
        tmp_path.replace(target)
    return notes


def fetch_pairs(cache: Path = CACHE) -> Path:
    """The folder of `PAIR_DOCS` (`cache`/pairs): `pdf/` and `html/` each a notes folder."""
    return fetch(cache / "pairs", cache, PAIR_DOCS)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cache", type=Path, default=CACHE)
    parser.add_argument("--notes", type=Path, default=None)
    args = parser.parse_args(argv)
    try:
        notes = fetch(args.notes, args.cache)
        pairs = fetch_pairs(args.cache)
    except (FetchError, subprocess.CalledProcessError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(notes)
    print(pairs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
