"""winspawn-lint: find and fix the multiprocessing bugs that crash ML pipelines under spawn.

Public API::

    from winspawn_lint import lint_source
    for finding in lint_source(text, filename="train.py"):
        print(finding.line, finding.code, finding.message)
"""

from __future__ import annotations

from typing import Optional

from .__version__ import __version__
from .finding import Finding
from .rules import RULES, FixSafety, Rule
from .settings import Settings

__all__ = ["Finding", "FixSafety", "RULES", "Rule", "Settings", "__version__", "lint_source", "check_text"]


def check_text(text: str, filename: Optional[str] = None, settings: Optional[Settings] = None,
               noqa: bool = True, prefilter: bool = True) -> list[Finding]:
    """Findings for decoded source text; raises ``source.SourceError`` when it cannot be parsed."""
    from .pipeline import check

    return check(text, filename, settings, noqa=noqa, prefilter=prefilter).findings


def lint_source(source: str, filename: Optional[str] = None, settings: Optional[Settings] = None) -> list[Finding]:
    """Findings for Python source text (default rule selection, ``# noqa`` applied)."""
    return check_text(source, filename, settings)
