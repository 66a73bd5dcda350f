"""WSP106's fix (move a definition workers need out of the main guard), and the promise that our own
wrap-in-main-guard fix never creates a WSP106: it moves statements under the guard, never definitions."""

from __future__ import annotations

import textwrap

import pytest

from winspawn_lint import check_text
from winspawn_lint import fix_text
from winspawn_lint.rules import RULES
from winspawn_lint.settings import Settings

ALL = Settings(select=frozenset(RULES))


def _fix(code: str) -> str:
    return fix_text(textwrap.dedent(code).lstrip("\n"), None, ALL, unsafe=True).text


def _codes(code: str) -> set[str]:
    return {f.code for f in check_text(code, None, ALL)}


WRAP_CASES = {
    "start before a def, no guard": """
        import multiprocessing

        pool = multiprocessing.Pool(2)
        print(pool.map(abs, [-1, -2]))


        def work(x):
            return x * 2


        print(pool.map(work, [1, 2]))
    """,
    "start before a def, guard after": """
        import multiprocessing

        with multiprocessing.Pool(2) as pool:
            print(pool.map(abs, [-1]))


        def work(x):
            return x * 2


        class Box:
            pass


        if __name__ == "__main__":
            multiprocessing.freeze_support()
            with multiprocessing.Pool(2) as pool:
                print(pool.map(work, [1]))
    """,
    "dataset class after the loader": """
        import torch
        from torch.utils.data import DataLoader, Dataset

        loader = None
        for batch in DataLoader(torch.arange(4), num_workers=2):
            print(batch)


        class Squares(Dataset):
            def __len__(self):
                return 2

            def __getitem__(self, index):
                return index


        for batch in DataLoader(Squares(), num_workers=2):
            print(batch)
    """,
}


@pytest.mark.parametrize("code", list(WRAP_CASES.values()), ids=list(WRAP_CASES))
def test_wrap_in_main_guard_never_creates_wsp106(code):
    before = _codes(textwrap.dedent(code))
    assert "WSP101" in before
    fixed = _fix(code)
    assert fixed != textwrap.dedent(code).lstrip("\n"), "the wrap fix did nothing: the case tests nothing"
    compile(fixed, "<fixed>", "exec")
    after = _codes(fixed)
    assert "WSP106" not in after, fixed
    assert "WSP101" not in after, fixed


def test_hoists_the_definition_before_the_guard():
    fixed = _fix('''
        import multiprocessing

        if __name__ == "__main__":
            multiprocessing.freeze_support()

            # doubles
            def double(x):
                return x * 2

            with multiprocessing.Pool(2) as pool:
                print(pool.map(double, range(4)))
    ''')
    assert fixed == textwrap.dedent('''\
        import multiprocessing


        # doubles
        def double(x):
            return x * 2


        if __name__ == "__main__":
            multiprocessing.freeze_support()

            with multiprocessing.Pool(2) as pool:
                print(pool.map(double, range(4)))
    ''')
    assert fix_text(fixed, None, ALL, unsafe=True).text == fixed  # idempotent


def test_wsp106_fix_is_unsafe_only():
    code = textwrap.dedent('''
        import multiprocessing

        if __name__ == "__main__":
            multiprocessing.freeze_support()
            def double(x):
                return x * 2

            with multiprocessing.Pool(2) as pool:
                print(pool.map(double, range(4)))
    ''')
    assert fix_text(code, None, ALL, unsafe=False).text == code


@pytest.mark.parametrize("definition", [
    "@functools.lru_cache(maxsize=SIZE)\ndef double(x):\n    return x * 2\n",
    "def double(x, factor=FACTOR):\n    return x * factor\n",
    "class Double(Base):\n    def __call__(self, x):\n        return x * 2\n",
])
def test_refuses_when_the_definition_reads_a_name_the_guard_binds(definition):
    uses = "Double()" if definition.startswith("class") else "double"
    code = (
        "import functools\nimport multiprocessing\n\n"
        'if __name__ == "__main__":\n'
        "    multiprocessing.freeze_support()\n"
        "    SIZE = FACTOR = 2\n    Base = object\n"
        + textwrap.indent(definition, "    ")
        + f"    with multiprocessing.Pool(2) as pool:\n        print(pool.map({uses}, range(4)))\n"
    )
    assert "WSP106" in _codes(code)
    outcome = fix_text(code, None, ALL, unsafe=True)
    assert outcome.text == code
    assert outcome.note and "bound under the guard" in outcome.note
