"""WSP302's one fix: a lock created inline in a ``Process``'s arguments is kept in a variable, on the row before the
statement (``wsp302_multiprocessing_lock_inline.fixed.py`` shows the fixed script no longer hangs under spawn).
Where a variable would not do, the finding is left with a note; every other WSP302 finding has no fix and is
never marked fixable."""

from __future__ import annotations

import textwrap

import pytest

from declined import ALL, assert_declined
from winspawn_lint import fix_text

HEAD = '''\
import multiprocessing


def work(lock, queue):
    with lock:
        queue.put("done")


'''


def test_the_variable_is_a_local_named_for_the_primitive_and_free_in_its_function():
    text = HEAD + textwrap.dedent('''\
        def main(lock_count):
            queue = multiprocessing.Queue()
            p = multiprocessing.Process(target=work, args=(multiprocessing.Event(), queue))
            p.start()
            p.join()
            semaphore = None
            q = multiprocessing.Process(target=work, args=(multiprocessing.Semaphore(2), queue))
            q.start()
            q.join()


        if __name__ == "__main__":
            multiprocessing.freeze_support()
            main(1)
        ''')
    outcome = fix_text(text, "train.py", ALL, unsafe=True)
    assert ("    event = multiprocessing.Event()\n"
            "    p = multiprocessing.Process(target=work, args=(event, queue))\n") in outcome.text
    assert ("    semaphore_2 = multiprocessing.Semaphore(2)\n"
            "    q = multiprocessing.Process(target=work, args=(semaphore_2, queue))\n") in outcome.text
    assert [f.code for f in outcome.fixed] == ["WSP302", "WSP302"]


@pytest.mark.parametrize("body, why", [
    ('''\
        for _ in range(2):
            p = multiprocessing.Process(target=work, args=(multiprocessing.Lock(), queue))
            p.start()
        ''', "the lock is created in a loop, where a variable keeps only the last one alive"),
    ('''\
        procs = [multiprocessing.Process(target=work, args=(multiprocessing.Lock(), queue)) for _ in range(2)]
        for p in procs:
            p.start()
        ''', "the lock is created in a lambda or a comprehension"),
    ('''\
        with multiprocessing.Process(target=work, args=(multiprocessing.Lock(), queue)) as p:
            p.start()
        ''', "the lock is created in the header of a compound statement"),
], ids=["loop", "comprehension", "with"])
def test_where_a_variable_would_not_do_it_is_left_with_a_note(body, why, tmp_path, capsys):
    text = HEAD + "def main():\n    queue = multiprocessing.Queue()\n" + textwrap.indent(textwrap.dedent(body), "    ") \
        + '\n\nif __name__ == "__main__":\n    multiprocessing.freeze_support()\n    main()\n'
    assert_declined(text, "WSP302", why, tmp_path, capsys)


def test_any_other_unpicklable_argument_has_no_fix(tmp_path, capsys):
    text = HEAD + textwrap.dedent('''\
        def main(path):
            queue = multiprocessing.Queue()
            p = multiprocessing.Process(target=work, args=(open(path), queue))
            p.start()


        if __name__ == "__main__":
            multiprocessing.freeze_support()
            main("a.txt")
        ''')
    assert_declined(text, "WSP302", None, tmp_path, capsys)
