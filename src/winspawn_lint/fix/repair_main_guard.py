"""Repair a main guard that is not one (WSP102), in place.

* ``if __name__ == "main":``, ``"__main"``, ``"_main_"``, ``__name__ is "__main__"``,
  ``__file__ == "__main__"`` → ``if __name__ == "__main__":`` (its body, which never ran, now
  runs when the file is executed as a script: what the author meant, hence UNSAFE: it changes
  what the program does);
* ``if __name__ != "__main__": raise SystemExit`` → ``if __name__ not in ("__main__",
  "__mp_main__"):``, which still refuses a plain import but lets spawned workers (which import
  the script as ``__mp_main__``) through.

The string quotes of the original test are kept.  Run on its own::

    python -m libcst.tool codemod -x winspawn_lint.fix.commands.RepairMainGuard train.py
"""

from __future__ import annotations

import ast
import io
import tokenize

from ..analysis.guards import broken_guard, exits_unless_main
from .. import rules
from ._base import Codemod, Edit, syntax_tree
from .lines import Lines


class RepairMainGuard(Codemod):
    DESCRIPTION = 'Repair `if` statements that mean to be `if __name__ == "__main__":` but are not.'
    TITLE = "Repair the main guard"
    FIXES = (rules.WSP102,)

    def edit(self, text: str) -> list[Edit]:
        module = syntax_tree(text)
        lines = Lines(text)
        for finding in self.findings_for(text):
            node = next((n for n in module.body if isinstance(n, ast.If) and n.lineno == finding.line), None)
            if node is None:
                self.note(finding, "not a module-level `if`")
                continue
            quote = _quote(lines.segment(node.test))
            main = f"{quote}__main__{quote}"
            if broken_guard(node.test):
                test = f"__name__ == {main}"
            elif exits_unless_main(node):
                test = f"__name__ not in ({main}, {quote}__mp_main__{quote})"
            else:
                self.note(finding, "unrecognised guard shape")
                continue
            lines.replace_node(node.test, test)  # its parentheses, if any, stay
            self.fixes([finding])
        return lines.edits()


def _quote(test: str) -> str:
    """The quote of the test's first string literal, f-strings aside (double when it has none, or a triple-quoted
    one)."""
    try:
        for token in tokenize.generate_tokens(io.StringIO(test.strip()).readline):
            if token.type == tokenize.STRING and "f" not in token.string[:3].lower():
                literal = token.string.lstrip("rRbBuU")
                return literal[0] if literal[:3] not in ('"""', "'''") else '"'
    except (tokenize.TokenError, SyntaxError):
        pass
    return '"'
