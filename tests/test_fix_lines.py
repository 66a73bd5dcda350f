"""``fix.lines``: the hoisting codemods edit rows at ``ast`` positions, and which blank and comment rows go with
a statement must be what libcst gives it (its leading lines, its block's footer), or a row edit would give
another text than the libcst edit it replaces.  libcst itself is the oracle here."""

from __future__ import annotations

import ast

import libcst as cst
import pytest

from winspawn_lint.fix.lines import CannotEdit, Lines, indent_step, indented

SHAPES = [
    "def f():\n    x = 1\n    # deep\n  # mid\n# top\n\ny = 2\n",
    "def f():\n    x = 1\n\n    # deep\n\ny = 2\n",
    "def f():\n    x = 1\n# top\n    # deep\ny = 2\n",
    "def f():\n    x = 1\n    # a\n\n    # b\n\n# c\ny = 2\n",
    "import os\n\n\n# about f\n# more\ndef f():\n    if a:\n        b = 1\n        # in if\n    # in f\n\n\n@d\nclass C:\n    pass\n",
    "x = 1\n\n\n\n# lone\n\nfor i in y:\n    pass\nelse:\n    z = 2\n    # else footer\nw = 3\n",
    "x = 0\nmatch x:\n    case [a, *rest]:\n        x = rest\n    case _:\n        pass\n        # case footer\n    # match footer\n"
    "# top\ny = 2\n",
    "x = 0\ntry:\n    a = 1\nexcept E:\n    pass\n    # handler footer\nfinally:\n    b = 2\n    # finally footer\ny = 2\n",
]


def _libcst_rows(text: str) -> list[tuple[int, int]]:
    """For each top-level statement after the first: (first leading row, last row with its footer), as libcst
    renders the module."""
    tree = cst.parse_module(text)
    out, row = [], 1 + sum(tree.code_for_node(line).count("\n") for line in tree.header)
    for statement in tree.body:  # a statement's code starts with its leading lines and ends with its footers
        code = tree.code_for_node(statement)
        out.append((row, row + code.count("\n") - 1))
        row += code.count("\n")
    return out[1:]

@pytest.mark.parametrize("text", SHAPES)
def test_leading_rows_and_footers_are_libcsts(text):
    module, lines = ast.parse(text), Lines(text)
    ours = [(lines.leading(statement, module.body[index - 1]), lines.last(statement))
            for index, statement in enumerate(module.body) if index]
    assert ours == _libcst_rows(text)


def test_the_first_statement_of_a_module_has_no_leading_rows():
    text = "# licence\n\nimport os\n"
    assert Lines(text).top_leading(ast.parse(text), 0) == 3


def test_edits_apply_together_in_row_order_and_keep_crlf():
    text = "a = 1\r\nb = lambda: 2\r\nc = 3\r\n"
    lines, module = Lines(text), ast.parse(text)
    lines.replace_node(module.body[1].value, "_b")
    lines.insert(1, "def _b():\n    return 2\n\n\n")
    lines.replace(3, 3, "")
    assert lines.edited() == "def _b():\r\n    return 2\r\n\r\n\r\na = 1\r\nb = _b\r\n"


def test_overlapping_edits_are_refused():
    lines = Lines("a = 1\nb = 2\n")
    lines.replace(1, 2, "")
    lines.replace(2, 2, "c = 3\n")
    with pytest.raises(CannotEdit):
        lines.edited()


def test_a_block_moved_to_column_0_keeps_its_strings():
    text = 'def main():\n    def f():\n        """Doc\n        more"""\n        return (1,\n  2)\n'
    lines = Lines(text)
    assert lines.dedented(2, 4, "    ") == 'def f():\n    """Doc\n        more"""\n'
    with pytest.raises(CannotEdit):  # a continuation row left of the block cannot move with it
        lines.dedented(2, 6, "    ")


def test_indented_leaves_rows_inside_strings():
    assert indented('x = """a\nb"""\ny = 1\n', "    ") == '    x = """a\nb"""\n    y = 1\n'


def test_segments_count_characters_where_ast_counts_bytes():
    text = 'x = ("é", lambda: "ü")\n'
    node = ast.parse(text).body[0].value.elts[1]
    assert Lines(text).segment(node).strip() == 'lambda: "ü"'


@pytest.mark.parametrize("text, step", [
    ("def f():\n  pass\n", "  "), ("x = 1\n", "    "), ("if a:\n\tb\n", "\t"),
    # a four-space file whose first block happens to be indented by two is a four-space file
    ("def f():\n  pass\n\n\ndef g():\n    if a:\n        b\n    for c in d:\n        e\n", "    "),
])
def test_indent_step_is_the_unit_most_blocks_use(text, step):
    assert indent_step(ast.parse(text), Lines(text)) == step


def test_a_definition_that_cannot_move_as_rows_leaves_the_file_with_a_note():
    from winspawn_lint import fix_text
    from winspawn_lint.rules import RULES
    from winspawn_lint.settings import Settings

    text = ("from torch.utils.data import DataLoader\n\n\ndef main(ds):\n    def collate(batch):\n"
            "        return [b for b in (batch,\n1)]\n    return DataLoader(ds, collate_fn=collate, num_workers=2)\n")
    outcome = fix_text(text, None, Settings(select=frozenset(RULES)), unsafe=True)
    assert outcome.text == text
    assert "indented less than its first line (while hoisting `collate`)" in outcome.note
