"""Messages that read right and say what happened: each case is a fixture line (``# error:``) and its wording."""

from __future__ import annotations

import pytest

from fixture_spec import FIXTURES_DIR
from winspawn_lint import RULES, Settings
from winspawn_lint.analysis.project import Project
from winspawn_lint.pipeline import check

ALL_RULES = Settings(select=frozenset(RULES))


def messages(name: str) -> dict[tuple[int, str], str]:
    path = FIXTURES_DIR / name
    found = check(path.read_text(encoding="utf-8"), str(path), ALL_RULES, project=Project()).findings
    return {(f.line, f.code): f.message for f in found}


@pytest.mark.parametrize("name", sorted(p.name for p in FIXTURES_DIR.glob("*.py") if not p.name.endswith(".fixed.py")))
def test_code_spans_are_balanced(name):
    for message in messages(name).values():
        assert message.count("`") % 2 == 0, message


def test_a_chain_keeps_the_code_spans_of_a_described_call():
    found = messages("wsp103_called_function_joins_process_group.py")
    assert found[(16, "WSP103")].startswith(
        "`setup()` runs at import time (setup → `torch.distributed.init_process_group(...)` (joining the process "
        "group)) in a module that starts worker processes")
    # a plain call at the end of a chain still reads without backticks
    assert "(load_table → np.load(...))" in messages("wsp103_called_function.py")[(18, "WSP103")]


def test_heavy_calls_in_a_loop_that_starts_workers_are_one_finding_with_a_count():
    found = messages("wsp103_in_loop_that_starts_workers.py")
    assert sorted(found) == [(15, "WSP103"), (19, "WSP101")]
    assert found[(15, "WSP103")].startswith(
        "`np.load(...)` runs at import time (as do 2 more heavy calls in this loop) ")
