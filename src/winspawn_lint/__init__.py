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
    from . import analysis, noqa as noqa_module, source as source_module
    from .analysis.prefilter import may_have_findings

    settings = settings or Settings()
    if prefilter and not may_have_findings(text, settings.registry):
        return []
    tree = source_module.parse(source_module.Source(text, "utf-8", False), filename or "<unknown>")
    lines = source_module.split_lines(text)
    findings = analysis.run(tree, lines, settings, filename)
    return noqa_module.filter_findings(findings, text, lines) if noqa else findings


def lint_source(source: str, filename: Optional[str] = None, settings: Optional[Settings] = None) -> list[Finding]:
    """Findings for Python source text (default rule selection, ``# noqa`` applied)."""
    return check_text(source, filename, settings)
