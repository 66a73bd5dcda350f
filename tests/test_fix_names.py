"""The helpers a hoist writes are named for what they are or do: the keyword the lambda is passed as, the name it is
assigned to, else what its body computes, else the call it is given to; never a name that says nothing."""

from __future__ import annotations

import re
import textwrap

import pytest

from winspawn_lint import fix_text
from winspawn_lint.rules import RULES
from winspawn_lint.settings import Settings

ALL = Settings(select=frozenset(RULES))

POOL = textwrap.dedent('''\
    import multiprocessing

    import torch
    from torch.utils.data import DataLoader
    from torchvision import transforms


    def main(rows):
        STATEMENT


    if __name__ == "__main__":
        multiprocessing.freeze_support()
        main([])
    ''')


@pytest.mark.parametrize("statement, name", [
    ("DataLoader(rows, num_workers=2, collate_fn=lambda batch: batch).dataset", "_collate_fn"),
    ("collate = lambda b: b\n    return DataLoader(rows, num_workers=2, collate_fn=collate)", "_collate"),
    ("multiprocessing.Pool(2).map(lambda row: row['text'], rows)", "_text"),
    ("multiprocessing.Pool(2).map(lambda row: str(row.label), rows)", "_label"),
    ("multiprocessing.Pool(2).map(lambda row: torch.flatten(row), rows)", "_flatten"),
    ("multiprocessing.Pool(2).map(lambda row: {'input_ids': row}, rows)", "_input_ids"),
    ("multiprocessing.Pool(2).map(lambda row: tuple(torch.stack(c) for c in row), rows)", "_stack"),
    ("multiprocessing.Pool(2).map(lambda row: row, rows)", "_identity"),
    # Nothing to name it for in its body (arithmetic, a one-letter key): the call it is given to.
    ("multiprocessing.Pool(2).map(lambda row: row * 2, rows)", "_map_fn"),
    ("multiprocessing.Pool(2).map(lambda row: {'y': row}, rows)", "_map_fn"),
])
def test_the_helper_is_named_for_what_it_is_or_does(statement, name):
    text = POOL.replace("STATEMENT", statement)
    outcome = fix_text(text, "train.py", ALL, unsafe=True)
    assert re.findall(r"^def (\w+)\(", outcome.text, re.M) == [name, "main"], outcome.note
