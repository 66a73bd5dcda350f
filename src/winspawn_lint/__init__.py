"""winspawn-lint: find and fix the multiprocessing bugs that crash ML pipelines under spawn.

Public API, one function per verb::

    from winspawn_lint import check_text, fix_text

    for finding in check_text(text, filename="train.py"):
        print(finding.line, finding.col + 1, finding.code, finding.message)

    outcome = fix_text(text, filename="train.py")   # safe fixes; unsafe=True adds the unsafe ones
    new_text = outcome.text

``Finding`` (what a check reports), ``Settings`` (rule selection and policies), ``RULES`` (the
catalogue, by code) and ``FixSafety`` complete it.  Everything else is internal; see
docs/architecture.md for the layout.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional

from .__version__ import __version__
from .finding import Finding
from .rules import RULES, FixSafety, Rule
from .settings import Settings

if TYPE_CHECKING:
    from .fix import FixOutcome

__all__ = ["Finding", "FixSafety", "RULES", "Rule", "Settings", "__version__", "check_text", "fix_text"]


def check_text(text: str, filename: Optional[str] = None, settings: Optional[Settings] = None,
               noqa: bool = True, prefilter: bool = True) -> list[Finding]:
    """The findings for decoded Python source *text*, sorted by position.

    *filename* names the file for per-file ignores, messages and sibling-module inference (``None``: not
    on disk).  *settings*: the default rule selection and policies when ``None``.  *noqa*: honour
    ``# noqa`` comments.  *prefilter*: skip, unparsed, a text that mentions no worker-starting API.
    Raises :class:`winspawn_lint.io.source.SourceError` when the text cannot be parsed.  Calls share what they
    read of the project's other files while those files are unchanged (one call at a time).
    """
    from .pipeline import api_project, check
    from .runner import quietly

    settings = settings or Settings()
    with api_project(settings.registry) as project:
        # (whether *text* is the file's is asked when the text is analysed: when it is, the module's facts are
        # those the project keeps for the file)
        return quietly(lambda: check(text, filename, settings, project=project, noqa=noqa, prefilter=prefilter,
                                     on_disk=None).findings, project)


def fix_text(text: str, filename: Optional[str] = None, settings: Optional[Settings] = None,
             unsafe: bool = False) -> "FixOutcome":
    """Apply every allowed fix to decoded Python source *text*, as ``--fix`` (and ``--unsafe-fixes``
    when *unsafe*) would.

    Returns a ``FixOutcome``: ``text`` (the new text, or *text* itself when nothing was fixed),
    ``fixed`` and ``remaining`` (findings), and ``note`` (why a fix was declined, if one was).  The
    new text always compiles; libcst is imported only here.
    """
    from .pipeline import api_project
    from .runner import fix_source, quietly

    settings = settings or Settings()
    with api_project(settings.registry) as project:
        return quietly(lambda: fix_source(text, filename, settings, unsafe, project), project)
