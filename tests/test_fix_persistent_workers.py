"""WSP902's fix: ``persistent_workers=True`` on a DataLoader iterated once per epoch, as the call is laid out, and
only where its workers are sure to exist (``persistent_workers=True`` with no workers raises ``ValueError``)."""

from __future__ import annotations

import textwrap

import pytest

from winspawn_lint import fix_text
from winspawn_lint.rules import RULES
from winspawn_lint.settings import Settings

ALL = Settings(select=frozenset(RULES))

LOOP = textwrap.dedent('''\
    import multiprocessing

    from torch.utils.data import DataLoader

    WORKERS = 2


    def train(args, dataset):
        loader = CALL
        for epoch in range(3):
            for batch in loader:
                print(batch)


    if __name__ == "__main__":
        multiprocessing.freeze_support()
    ''')


@pytest.mark.parametrize("call, fixed", [
    ("DataLoader(dataset, num_workers=2)", "DataLoader(dataset, num_workers=2, persistent_workers=True)"),
    ("DataLoader(dataset, num_workers=WORKERS)", "DataLoader(dataset, num_workers=WORKERS, persistent_workers=True)"),
    # A count that may be 0: persistent only when there are workers.
    ("DataLoader(dataset, num_workers=args.workers)",
     "DataLoader(dataset, num_workers=args.workers, persistent_workers=args.workers > 0)"),
    ("DataLoader(dataset, 4, False, None, None, 2)", "DataLoader(dataset, 4, False, None, None, 2, persistent_workers=True)"),
    # Said out loud, the default is turned around in place.
    ("DataLoader(dataset, num_workers=2, persistent_workers=False)",
     "DataLoader(dataset, num_workers=2, persistent_workers=True)"),
])
def test_the_keyword_is_added(call, fixed):
    outcome = fix_text(LOOP.replace("CALL", call), "train.py", ALL, unsafe=True)
    assert f"loader = {fixed}\n" in outcome.text
    assert outcome.remaining == []


def test_a_count_it_cannot_tell_about_is_left_with_a_note():
    # (A call that unpacks `**options` is not reported: they may hold `persistent_workers=True`.)
    text = LOOP.replace("CALL", "DataLoader(dataset, num_workers=len(dataset) // 8)")
    outcome = fix_text(text, "train.py", ALL, unsafe=True)
    assert outcome.text == text and "WSP902 not fixed: the worker count is an expression" in outcome.note


def test_a_safe_run_leaves_it():
    text = LOOP.replace("CALL", "DataLoader(dataset, num_workers=2)")
    assert fix_text(text, "train.py", ALL, unsafe=False).text == text
