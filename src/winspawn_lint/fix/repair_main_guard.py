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

from ..analysis.guards import broken_guard, exits_unless_main
from .. import rules
from . import _cst as cst
from ._base import WinspawnCodemod, statement_groups


class RepairMainGuard(WinspawnCodemod):
    DESCRIPTION = 'Repair `if` statements that mean to be `if __name__ == "__main__":` but are not.'
    TITLE = "Repair the main guard"
    FIXES = (rules.WSP102,)

    def transform_module_impl(self, tree: cst.Module) -> cst.Module:
        text, module, _ = self.prepare(tree)
        repairs: dict[int, tuple[str, list]] = {}  # id(ast If) -> (kind, findings)
        for finding in self.findings_for(text):
            node = next((n for n in module.body if isinstance(n, ast.If) and n.lineno == finding.line), None)
            if node is None:
                self.note(finding, "not a module-level `if`")
                continue
            if broken_guard(node.test):
                repairs[id(node)] = ("equal", [finding])
            elif exits_unless_main(node):
                repairs[id(node)] = ("not_in", [finding])
            else:
                self.note(finding, "unrecognised guard shape")
        if not repairs:
            return tree
        body = list(tree.body)
        # A module-level `if` is a libcst top-level statement of its own: found by its place in the module.
        for index, group in enumerate(statement_groups(tree, module)):
            if len(group) != 1 or id(group[0]) not in repairs:
                continue
            kind, findings = repairs[id(group[0])]
            statement = body[index]
            assert isinstance(statement, cst.If)
            quote = _quote(statement.test)
            main = f"{quote}__main__{quote}"
            if kind == "equal":
                test = f"__name__ == {main}"
            else:
                test = f"__name__ not in ({main}, {quote}__mp_main__{quote})"
            self.applied.extend(findings)
            new_test = cst.parse_expression(test, config=tree.config_for_parsing)
            body[index] = statement.with_changes(test=new_test.with_changes(lpar=statement.test.lpar,
                                                                            rpar=statement.test.rpar))
        return tree.with_changes(body=body)


def _quote(test: cst.BaseExpression) -> str:
    found: list[str] = []

    class Find(cst.CSTVisitor):
        def visit_SimpleString(self, node: cst.SimpleString) -> None:
            found.append(node.quote)

    test.visit(Find())
    return found[0] if found and found[0] in ("'", '"') else '"'
