"""WSP107's fix: a module imported only under the guard moves to the module's imports; a global the parent assigns
before it creates the pool is set in each worker by a pool initializer (``initargs``).  Anything else is left, with
a note that says why, and is not marked fixable.  (The ``wsp107_*.fixed.py`` fixtures show the fixed scripts run
under spawn as the originals did under fork.)"""

from __future__ import annotations

import textwrap

import pytest

from declined import ALL, assert_declined
from winspawn_lint import fix_text

HEAD = '''\
import multiprocessing
from concurrent.futures import ProcessPoolExecutor

FACTOR = None


def scale(x):
    return x * FACTOR


'''


def fixed(body: str):
    text = HEAD + textwrap.dedent(body)
    return fix_text(text, "train.py", ALL, unsafe=True)


def test_an_executor_gets_an_initializer_and_a_call_made_too_long_is_wrapped_at_its_first_argument():
    outcome = fixed('''\
        def main(factor):
            global FACTOR
            FACTOR = factor
            with ProcessPoolExecutor(max_workers=2) as pool:
                print(list(pool.map(scale, range(4))))


        if __name__ == "__main__":
            multiprocessing.freeze_support()
            main(10)
        ''')
    assert "def _set_factor(factor):\n    global FACTOR\n    FACTOR = factor\n\n\ndef main(factor):" in outcome.text
    # Past the line length on one row, and on one continuation row: one keyword a row, at the first argument.
    assert ("    with ProcessPoolExecutor(max_workers=2,\n"
            "                             initializer=_set_factor,\n"
            "                             initargs=(FACTOR,)) as pool:\n") in outcome.text
    assert [f.code for f in outcome.fixed] == ["WSP107"]


def test_two_globals_of_one_pool_share_its_initializer():
    text = HEAD.replace("FACTOR = None\n", "FACTOR = None\nOFFSET = 0\n").replace("x * FACTOR", "x * FACTOR + OFFSET")
    text += textwrap.dedent('''\
        if __name__ == "__main__":
            multiprocessing.freeze_support()
            FACTOR = 10
            OFFSET = 1
            with multiprocessing.Pool(2) as pool:
                print(pool.map(scale, range(4)))
        ''')
    outcome = fix_text(text, "train.py", ALL, unsafe=True)
    assert "def _set_factor_and_offset(factor, offset):\n    global FACTOR, OFFSET\n" in outcome.text
    assert ("    with multiprocessing.Pool(2,\n"
            "                              initializer=_set_factor_and_offset,\n"
            "                              initargs=(FACTOR, OFFSET)) as pool:\n") in outcome.text


def test_a_safe_run_leaves_it():
    text = HEAD + 'if __name__ == "__main__":\n    multiprocessing.freeze_support()\n    FACTOR = 3\n    with multiprocessing.Pool(2) as pool:\n' \
                  '        print(pool.map(scale, range(4)))\n'
    outcome = fix_text(text, "train.py", ALL, unsafe=False)
    assert outcome.text == text


@pytest.mark.parametrize("body, why", [
    ('''\
        if __name__ == "__main__":
            multiprocessing.freeze_support()
            FACTOR = 3
            child = multiprocessing.Process(target=scale, args=(2,))
            child.start()
            child.join()
        ''', "the main guard creates no `multiprocessing.Pool` or `ProcessPoolExecutor` to give an initializer "
             "that sets `FACTOR`"),
    ('''\
        def init():
            pass


        if __name__ == "__main__":
            multiprocessing.freeze_support()
            FACTOR = 3
            with multiprocessing.Pool(2, init) as pool:
                print(pool.map(scale, range(4)))
        ''', "the pool the main guard creates has an initializer already"),
    ('''\
        if __name__ == "__main__":
            multiprocessing.freeze_support()
            with multiprocessing.Pool(2) as pool:
                FACTOR = 3
                print(pool.map(scale, range(4)))
        ''', "`FACTOR` is assigned after the pool is created"),
    ('''\
        def setup():
            global FACTOR
            FACTOR = 3


        def main():
            global FACTOR
            FACTOR = 4
            with multiprocessing.Pool(2) as pool:
                print(pool.map(scale, range(4)))


        if __name__ == "__main__":
            multiprocessing.freeze_support()
            setup()
            main()
        ''', "`FACTOR` is assigned in more than one function"),
    ('''\
        if __name__ == "__main__":
            multiprocessing.freeze_support()
            FACTOR = 3
            with multiprocessing.Pool(2) as pool:
                print(pool.map(scale, range(4)))
            child = multiprocessing.Process(target=scale, args=(2,))
            child.start()
            child.join()
        ''', "the main guard gives the worker function that reads `FACTOR` to other code than the pool too"),
], ids=["process", "initializer", "after-the-pool", "two-functions", "pool-and-process"])
def test_what_is_not_mechanical_is_left_with_a_note(body, why, tmp_path, capsys):
    assert_declined(HEAD + textwrap.dedent(body), "WSP107", why, tmp_path, capsys)


def test_an_aliased_import_under_the_guard_is_left():
    text = ("import multiprocessing\n\n\ndef encode(value):\n    return js.dumps(value)\n\n\n"
            'if __name__ == "__main__":\n    multiprocessing.freeze_support()\n    import json as js\n\n    with multiprocessing.Pool(2) as pool:\n'
            "        print(pool.map(encode, [1]))\n")
    outcome = fix_text(text, "train.py", ALL, unsafe=True)
    assert "WSP107 not fixed: `js` is imported under the main guard in a form that does not move as it is" \
        in outcome.note
    assert "import json as js" in outcome.text.split("if __name__")[1]


def test_the_moved_import_leaves_no_blank_row_after_the_guards_header_nor_two_in_a_row():
    text = ("import multiprocessing\n\n\ndef encode(value):\n    return json.dumps(value)\n\n\n"
            'if __name__ == "__main__":\n    import json\n\n    multiprocessing.freeze_support()\n\n'
            "    import csv\n\n    with multiprocessing.Pool(2) as pool:\n        print(pool.map(encode, [csv]))\n")
    outcome = fix_text(text, "train.py", ALL, unsafe=True)
    assert outcome.text.startswith("import json\nimport multiprocessing\n")
    assert ('if __name__ == "__main__":\n    multiprocessing.freeze_support()\n\n    import csv\n\n    with '
            in outcome.text)
