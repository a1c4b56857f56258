"""A real `evidence serve` for the tests: built with `go build` (or taken from $EVIDENCE_BIN), started on a
random loopback port with its own store in a temporary directory, stopped by its pid."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from typing import List, Optional

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))  # the repository
SAMPLE = os.path.join(ROOT, "corpus", "sample")
sys.path.insert(0, os.path.abspath(os.path.join(HERE, "..")))  # evidence_client without installing it

SERVICE = "svc-0123456789abcdef-token"
ALICE = "alice-0123456789abcdef-token"

_bin: Optional[str] = None
_bin_dir: Optional[str] = None


def binary() -> str:
    """$EVIDENCE_BIN, or a binary built once per test run from this checkout."""
    global _bin, _bin_dir
    if _bin:
        return _bin
    env = os.environ.get("EVIDENCE_BIN")
    if env:
        if not os.access(env, os.X_OK):
            raise RuntimeError(f"EVIDENCE_BIN={env} is not an executable file")
        _bin = os.path.abspath(env)
        return _bin
    go = shutil.which("go") or "/usr/local/go/bin/go"
    _bin_dir = tempfile.mkdtemp(prefix="evidence-bin-")
    out = os.path.join(_bin_dir, "evidence")
    subprocess.run([go, "build", "-o", out, "./cmd/evidence"], cwd=ROOT, check=True)
    _bin = out
    return out


class Server:
    """One `evidence serve`; ``url`` once started. ``tokens``: write a tokens file (service + alice)."""

    def __init__(self, tokens: bool = False, args: Optional[List[str]] = None):
        self.dir = tempfile.mkdtemp(prefix="evidence-test-")
        self.db = os.path.join(self.dir, "test.db")
        cmd = [binary(), "--db", self.db, "serve", "--addr", "127.0.0.1:0",
               "--viewer-key", os.path.join(self.dir, "viewer.key")]
        if tokens:
            path = os.path.join(self.dir, "tokens")
            with open(path, "w") as f:
                f.write(f"{SERVICE} service\n{ALICE} alice@example.com\n")
            cmd += ["--tokens", path]
        cmd += args or []
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        self.url = self._wait_url()
        # drain the request log so the server never blocks on a full pipe
        threading.Thread(target=self._drain, daemon=True).start()

    def _wait_url(self) -> str:
        deadline = time.monotonic() + 30
        lines = []
        assert self.proc.stderr is not None
        while time.monotonic() < deadline:
            line = self.proc.stderr.readline()
            if not line:
                break
            lines.append(line)
            m = re.search(r"serving (http://127\.0\.0\.1:\d+)", line)
            if m:
                return m.group(1)
        self.stop()
        raise RuntimeError("evidence serve did not start:\n" + "".join(lines))

    def _drain(self) -> None:
        assert self.proc.stderr is not None
        for _ in self.proc.stderr:
            pass

    def stop(self) -> None:
        if self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.kill(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        shutil.rmtree(self.dir, ignore_errors=True)


def sample(name: str) -> str:
    return os.path.join(SAMPLE, name)


def read(name: str) -> str:
    with open(sample(name), encoding="utf-8") as f:
        return f.read()


def split(text: str, size: int = 400):
    """A stand-in for RecursiveCharacterTextSplitter(add_start_index=True): paragraphs packed into
    chunks of at most ``size`` code points, each with the offset where it starts in ``text``."""
    paras = []
    pos = 0
    for p in re.split(r"\n\n+", text):
        if not p.strip():
            continue
        i = text.index(p, pos)
        paras.append((i, i + len(p)))
        pos = i + len(p)
    chunks = []
    k = 0
    while k < len(paras):
        start, end = paras[k]
        j = k + 1
        while j < len(paras) and paras[j][1] - start <= size:
            end = paras[j][1]
            j += 1
        chunks.append((start, text[start:end]))
        k = j
    return chunks
