"""Property test: the fixer finishes quickly on every real-code shape, and what it writes is sound.

Programs are put together from the shapes training scripts have (a dataset whose methods assign locals, the
module-level names that share their names, loaders and pools started at import time or in ``main()``, local
collate functions and lambdas, comprehensions, ``global``, ``del``, ``:=``), with names drawn from a small
set so that they collide the way real scripts' names do.  No ``fix_text`` call may take more than
:data:`LIMIT` seconds (a SIGALRM turns a hang into a failure), and a rewrite compiles and is stable.
"""

from __future__ import annotations

import os
import signal
import time

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

from winspawn_lint import fix_text  # noqa: E402
from winspawn_lint.rules import RULES  # noqa: E402
from winspawn_lint.settings import Settings  # noqa: E402

LIMIT = 5.0
EXAMPLES = int(os.environ.get("WINSPAWN_FUZZ_EXAMPLES", "0") or 0) or 60
ALL_RULES = Settings(select=frozenset(RULES))
NAMES = ("out", "x", "y", "batch", "model", "data", "image", "scale", "epoch", "loader")

HEADER = ("import multiprocessing\nimport torch\nfrom torch.utils.data import DataLoader, Dataset\n"
          "from multiprocessing import Pool\n\n")

TOP = [
    "{a} = {b}\n",
    "{a} = torch.load('{b}.pt')\n",
    "{a} = [{b} for {b} in range(3)]\n",
    "{a} = {{k: {b} for k in range(2)}}\n",
    "if ({a} := len([1])) > 0:\n    {b} = {a}\n",
    "del {a}\n",
    "def helper_{a}({b}):\n    {a} = {b} * 2\n    return {a}\n",
    "def reads_{a}(v):\n    return v + {a}\n",
    "def sets_{a}():\n    global {a}\n    {a} = 1\n",
    "class DS_{a}(Dataset):\n    def __len__(self):\n        return 2\n\n"
    "    def __getitem__(self, i):\n        {a} = torch.zeros(1) + i\n        {b} = [{a} for _ in range(1)]\n"
    "        return {a}\n",
    "{a} = DataLoader(DS_{b}(), num_workers=2, collate_fn=lambda {b}: {b})\n",
    "for {a} in DataLoader(list(range(4)), num_workers=2):\n    {b} = {a}\n",
    "with Pool(2) as {a}:\n    {b} = {a}.map(reads_{b}, range(3))\n",
    "{a} = Pool(2).map(lambda v: v + {b}, range(3))\n",
    "def main_{a}({b}):\n    def collate({a}):\n        return [{b} for {b} in {a}]\n"
    "    {a} = DataLoader([1, 2], num_workers=2, collate_fn=collate)\n    return {a}\n",
    "def main2_{a}():\n    {b} = 3\n    f = lambda v: v * {b}\n    with Pool(2) as p:\n        return p.map(f, [1])\n",
    "match {a}:\n    case [{b}, *rest]:\n        {a} = rest\n    case _:\n        pass\n",
    "if __name__ == '__main__':\n    {a} = {b}\n",
]


@st.composite
def programs(draw) -> str:
    parts = [HEADER]
    for _ in range(draw(st.integers(1, 7))):
        shape = draw(st.sampled_from(TOP))
        parts.append(shape.format(a=draw(st.sampled_from(NAMES)), b=draw(st.sampled_from(NAMES))) + "\n")
    return "".join(parts)


class _Hang(Exception):
    pass


def _alarm(signum, frame):
    raise _Hang


@settings(max_examples=EXAMPLES, derandomize=True, deadline=None, database=None,
          suppress_health_check=list(HealthCheck))
@given(programs(), st.booleans())
def test_fix_finishes_in_time_and_is_sound(text, unsafe):
    try:
        compile(text, "fuzz.py", "exec", dont_inherit=True)
    except SyntaxError:
        return
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(int(LIMIT * 4))  # a hang fails the test instead of stopping the run
    try:
        start = time.monotonic()
        outcome = fix_text(text, "fuzz.py", ALL_RULES, unsafe=unsafe)
        took = time.monotonic() - start
        again = fix_text(outcome.text, "fuzz.py", ALL_RULES, unsafe=unsafe) if outcome.text != text else outcome
    except _Hang:
        pytest.fail(f"fix_text did not finish within {LIMIT * 4:.0f} s on:\n{text}")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert took < LIMIT, f"fix_text took {took:.1f} s on:\n{text}"
    compile(outcome.text, "fuzz.py", "exec", dont_inherit=True)
    assert again.text == outcome.text, f"a second fix changed it again:\n{outcome.text}"
