"""What git tracks: the real-code corpora (third-party repositories extracted into `.corpus/` and
`.corpus-holdout/`) stay out of it; the audit records each repository's commit instead."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
CORPORA = (".corpus", ".corpus-holdout")


@pytest.mark.skipif(not (ROOT / ".git").exists() or shutil.which("git") is None, reason="not a git checkout")
def test_no_corpus_file_is_tracked():
    tracked = subprocess.run(["git", "ls-files", "-z", "--", *CORPORA], cwd=ROOT, capture_output=True,
                             check=True).stdout
    assert tracked == b"", tracked.split(b"\0")[:5]


def test_the_corpora_are_ignored():
    ignored = (ROOT / ".gitignore").read_text(encoding="utf-8").splitlines()
    assert all(f"/{folder}/" in ignored for folder in CORPORA)
