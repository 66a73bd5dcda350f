"""The one per-file pipeline every front end shares: prefilter → parse → analyse → ``# noqa`` → findings.

The CLI reads and decodes a file (:mod:`.source`) and hands its text here; the flake8 plugin hands the text,
tree and file name flake8 already has; the fixer re-checks its rewritten text here.  Front ends only format
and filter what comes back, so the same text gives the same findings, at the same lines and columns,
whichever way it arrives.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Optional

from .finding import Finding
from .settings import Settings
from .io.source import Source, parse, split_lines


@dataclass
class Checked:
    """What the pipeline made of one text."""

    findings: list[Finding]
    #: the source lines as Python numbers them (see :func:`.source.split_lines`); None when the prefilter
    #: proved the text clean and nothing needed them
    lines: Optional[list[str]]
    #: the text's ``ast`` when it was analysed (the fixer reads the same tree)
    tree: Optional[ast.Module] = None


def check(text: str, filename: Optional[str] = None, settings: Optional[Settings] = None, *,
          tree: Optional[ast.Module] = None, noqa: bool = True, prefilter: bool = True,
          parse_clean: bool = False, enabled: Optional[frozenset[str]] = None) -> Checked:
    """Check decoded source text.

    *tree*: the text's ``ast`` tree when the caller has one (flake8).  *noqa*: apply ``# noqa`` comments (off
    for flake8, which applies its own).  *prefilter*: skip texts that mention no worker-starting API.
    *parse_clean*: parse a text the prefilter skips anyway, so that a file named on the command line that does
    not parse is reported.  *enabled*: the codes to report (default: the settings' selection for *filename*).
    Raises :class:`.source.SourceError` when the text cannot be parsed.
    """
    from .analysis.prefilter import may_have_findings

    settings = settings or Settings()
    if prefilter and not may_have_findings(text, settings.registry):
        if parse_clean and tree is None:
            parse(Source(text, "utf-8", False), filename or "<unknown>")
        return Checked([], None)
    from . import analysis
    from .report import noqa as noqa_module

    if tree is None:
        tree = parse(Source(text, "utf-8", False), filename or "<unknown>")
    lines = split_lines(text)
    findings = analysis.run(tree, lines, settings, filename, enabled)
    if noqa:
        findings = noqa_module.filter_findings(findings, text, lines)
    return Checked(findings, lines, tree)
