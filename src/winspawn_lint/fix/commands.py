"""The codemods as libcst ``CodemodCommand`` classes, for libcst's own command line::

    python -m libcst.tool codemod -x winspawn_lint.fix.commands.HoistLambda train.py

Only that route imports this module: ``libcst.codemod`` brings ``libcst.matchers`` with it (0.3–2.5 s of
import), which ``--fix`` does without.  This module is a front end, as the command line and the flake8 plugin
are: run this way, a codemod is given the findings of a check with every rule enabled, and applies unsafe fixes
too unless given ``--safe-only``.  Its edits are made to the module's code and the result parsed again: one
codemod, one pass, without the re-check ``--fix`` verifies each step with.
"""

from __future__ import annotations

import argparse

import libcst as cst
from libcst.codemod import CodemodCommand, CodemodContext

from ..analysis.project import Project
from ..pipeline import check
from ..rules import RULES
from ..settings import Settings
from . import CODEMODS, _applied
from ._base import Codemod, as_said


def _command(codemod: type[Codemod]) -> type[CodemodCommand]:
    class Command(CodemodCommand):
        DESCRIPTION = codemod.DESCRIPTION

        @staticmethod
        def add_args(arg_parser: argparse.ArgumentParser) -> None:
            arg_parser.add_argument("--safe-only", dest="safe_only", action="store_true",
                                    help="apply only fixes graded SAFE (default: unsafe fixes too)")

        def __init__(self, context: CodemodContext, safe_only: bool = False) -> None:
            super().__init__(context)
            self.safe_only = safe_only

        def transform_module_impl(self, tree: cst.Module) -> cst.Module:
            filename = self.context.filename
            settings = Settings(select=frozenset(RULES))
            project = Project(settings.registry)
            text = tree.code
            findings = check(text, filename, settings, project=project).findings
            unsafe = not self.safe_only
            fix = codemod(filename, [f for f in findings if f.safety.applies(unsafe) and codemod.wants(f)],
                          unsafe=unsafe, line_length=project.line_length(filename)).plan(text)
            for finding, why in fix.declined:
                self.warn(f"{finding.line}:{finding.col + 1}: {finding.code} not fixed: {as_said(why)}")
            if not fix.edits:
                return tree
            return cst.parse_module(_applied(text, fix))

    # Named as the codemod, at this module's top level: libcst finds it by that name (and pickles it by it).
    Command.__name__ = Command.__qualname__ = codemod.__name__
    return Command


for _codemod in CODEMODS:
    globals()[_codemod.__name__] = _command(_codemod)
