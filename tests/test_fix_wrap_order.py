"""The guard wrap keeps the order of what runs in the main process: the statements that stay at module level and
those that move run in the order they did, or the wrap is declined with a note saying which line needs what.
(``fix_wrap_keeps_order.py`` and its ``.fixed.py`` show the order kept at run time, under spawn and fork.)"""

from __future__ import annotations

import textwrap

from winspawn_lint import fix_text
from winspawn_lint.rules import RULES
from winspawn_lint.settings import Settings

ALL = Settings(select=frozenset(RULES))

HEAD = '''\
import multiprocessing


def square(x):
    return x * x


'''


def fixed(body: str):
    text = HEAD + textwrap.dedent(body)
    return text, fix_text(text, "train.py", ALL, unsafe=True)


def test_a_call_after_the_moved_code_moves_with_it_even_when_a_function_reads_its_name():
    text, outcome = fixed('''\
        with multiprocessing.Pool(2) as pool:
            print(pool.map(square, range(3)))
        model = build()
        model.cuda()
        optimizer = make_optimizer(model)


        def step():
            optimizer.step()


        step()
        ''')
    main = outcome.text[outcome.text.index("def main() -> None:"):]
    # The optimizer is built after `model.cuda()` as before: it does not stay behind at module level.
    assert main.index("model.cuda()") < main.index("optimizer = make_optimizer(model)") < main.index("step()")
    assert "    global optimizer\n" in main


def test_a_plain_assignment_stays_when_nothing_moved_before_it_touches_it():
    _, outcome = fixed('''\
        with multiprocessing.Pool(2) as pool:
            results = pool.map(square, range(3))
        NAMES = ("a", "b")


        def show():
            print(NAMES, results)


        show()
        ''')
    assert '\nNAMES = ("a", "b")\n' in outcome.text[:outcome.text.index("def main")]


def test_a_plain_assignment_that_reads_a_moved_name_moves():
    _, outcome = fixed('''\
        with multiprocessing.Pool(2) as pool:
            results = pool.map(square, range(3))
        TOTAL = results


        def show():
            print(TOTAL)


        show()
        ''')
    assert "    TOTAL = results\n" in outcome.text


def test_a_decorator_the_moved_code_assigns_declines_the_wrap():
    text, outcome = fixed('''\
        with multiprocessing.Pool(2) as pool:
            registry = dict(enumerate(pool.map(square, range(3))))


        @registry.setdefault
        def handler():
            return "done"


        print(registry)
        ''')
    assert outcome.text == text
    assert "8:6: WSP101 not fixed: line 12 needs `registry` when it runs, which line 8 assigns" in outcome.note


def test_a_decorator_default_or_annotation_counts_as_needed_when_the_definition_runs():
    text, outcome = fixed('''\
        with multiprocessing.Pool(2) as pool:
            SCALE = max(pool.map(square, range(3)))


        def scaled(x, factor=SCALE):
            return x * factor


        print(scaled(2))
        ''')
    assert outcome.text == text and "needs `SCALE` when it runs" in outcome.note


def test_what_a_function_reads_when_called_is_not_needed_when_it_is_defined():
    _, outcome = fixed('''\
        with multiprocessing.Pool(2) as pool:
            SCALE = max(pool.map(square, range(3)))


        def scaled(x):
            return x * SCALE


        print(scaled(2))
        ''')
    assert "def main() -> None:\n    global SCALE\n" in outcome.text


def test_a_definition_that_rebinds_a_name_the_moved_code_uses_declines_the_wrap():
    text, outcome = fixed('''\
        with multiprocessing.Pool(2) as pool:
            report = pool.map(square, range(3))
        print(report)


        def report():
            return "done"


        print(report())
        ''')
    assert outcome.text == text
    assert "8:6: WSP101 not fixed: line 13 rebinds `report`, which line 8 uses" in outcome.note


def test_into_an_existing_guard_a_statement_between_stays_in_order():
    _, outcome = fixed('''\
        with multiprocessing.Pool(2) as pool:
            results = pool.map(square, range(3))
        log = open_log()


        if __name__ == "__main__":
            multiprocessing.freeze_support()
            print(results, log)
        ''')
    guard = outcome.text[outcome.text.index('if __name__ == "__main__":'):]
    assert guard.index("results = pool.map") < guard.index("log = open_log()") < guard.index("print(results, log)")
