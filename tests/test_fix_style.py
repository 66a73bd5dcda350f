"""Fixed code is code a maintainer accepts: pycodestyle (E1, E2, E3, E5 at the configured maximum line length,
W) reports nothing on a fixed file that it did not report on the original, statements moved one block deeper
are rewrapped where a line would newly pass the limit — or, where no clean wrap exists, not moved — and
identical hoisted helpers are emitted once."""

from __future__ import annotations

import io
import textwrap
from collections import Counter
from contextlib import redirect_stdout

import pytest

from fixture_spec import fixed_files
from winspawn_lint import fix_text
from winspawn_lint.fix.style import indent_deeper, keeps_to
from winspawn_lint.rules import RULES
from winspawn_lint.settings import Settings

ALL = Settings(select=frozenset(RULES))
FIXED = fixed_files()


def pycodestyle_counts(text: str, limit: int = 79) -> Counter:
    import pycodestyle

    style = pycodestyle.StyleGuide(select=["E1", "E2", "E3", "E5", "W"], max_line_length=limit, quiet=True)
    checker = pycodestyle.Checker(lines=text.splitlines(keepends=True), options=style.options)
    found: Counter = Counter()
    checker.report_error = lambda line, col, message, check: found.update([message[:4]])
    with redirect_stdout(io.StringIO()):
        checker.check_all()
    return found


@pytest.mark.parametrize("fixed", FIXED, ids=[p.name for p in FIXED])
def test_fixed_fixture_has_no_new_pycodestyle_finding(fixed):
    # E501 only where the file keeps to the limit: in one that does not, moved lines are not rewrapped.
    original = fixed.with_name(fixed.name[: -len(".fixed.py")] + ".py")
    before = pycodestyle_counts(original.read_text(encoding="utf-8"))
    after = pycodestyle_counts(fixed.read_text(encoding="utf-8"))
    new = {code: n - before[code] for code, n in after.items() if n > before[code]}
    if not keeps_to(original.read_text(encoding="utf-8").splitlines(), 79):
        new.pop("E501", None)
    assert new == {}


def deeper(code: str, indent: str = "    ", limit: int = 79):
    return indent_deeper(textwrap.dedent(code), indent, limit)


def block(code: str) -> str:
    """``code`` one block deeper (every row that is not blank)."""
    return textwrap.indent(code, "    ")


def test_a_one_line_statement_breaks_after_the_bracket_that_holds_the_most_text():
    code = "optimizer = optim.Adam(model.parameters(), lr=opt.lr, betas=(opt.beta1, 0.999))\n"
    assert len(code) - 1 <= 79
    assert deeper(code) == (
        block("optimizer = optim.Adam(\n    model.parameters(), lr=opt.lr, betas=(opt.beta1, 0.999))\n"), None)


def test_a_block_header_gets_a_hanging_indent_of_eight():
    code = "for index, (images, labels) in enumerate(loader_with_a_long_name, start=1):\n    pass\n"
    new, why = deeper(code, limit=78)
    assert why is None
    assert new == block("for index, (images, labels) in enumerate(\n        loader_with_a_long_name, start=1):\n    pass\n")


def test_a_continuation_line_is_split_at_its_commas_at_its_own_indentation():
    code = '''\
        loader = DataLoader(
            dataset, batch_size=args.batch_size, shuffle=True, workers=4, pin_memory=1)
        '''
    new, why = deeper(code)
    assert why is None
    assert new == block(textwrap.dedent('''\
        loader = DataLoader(
            dataset, batch_size=args.batch_size, shuffle=True, workers=4,
            pin_memory=1)
        '''))


def test_every_row_is_indented_but_blank_rows_and_rows_inside_strings():
    code = 'total = 1 + \\\n    2\n\nif total:\n    # say it\n    print("""a\nb""", (\n  1))\n'
    assert deeper(code) == (
        '    total = 1 + \\\n        2\n\n    if total:\n        # say it\n        print("""a\nb""", (\n      1))\n', None)


@pytest.mark.parametrize("code, expected", [
    # The string does not fit on a row of its own after `print(` either: it becomes two literals (implicit
    # concatenation, one value), the second lined up under the first, as pycodestyle accepts.  A part with no
    # replacement field loses the `f` (pyflakes' F541).
    ('print(f"Your model is available at this address: https://hf.co/{repo_name} !!")\n',
     'print("Your model is available at this address: "\n      f"https://hf.co/{repo_name} !!")\n'),
    # ... and its `{{` means `{` again
    ('print(f"Model {{hub}} is at the address of the hub, lok: https://hf.co {name}")\n',
     'print("Model {hub} is at the address of the hub, lok: https://hf.co "\n      f"{name}")\n'),
    # never inside a \N{...} escape
    ('print("Your model is available at this address now: \\N{LATIN SMALL LETTER A} ")\n',
     'print("Your model is available at this address now: "\n      "\\N{LATIN SMALL LETTER A} ")\n'),
])
def test_a_long_string_in_brackets_is_split_after_a_space_keeping_its_value(code, expected):
    assert len(code) - 1 == 75 + len("    ")  # fits now; one block deeper it would not
    assert deeper(code) == (block(expected), None)
    printed: list = []
    for text in (code, expected):
        exec(text, {"name": "me", "repo_name": "me/model", "print": lambda *args: printed.append(args)})
    assert printed[0] == printed[1]


@pytest.mark.parametrize("code, why", [
    ("# " + "a comment " * 7 + "ends\n",
     "the comment `# a comment a comment a commen…` would be longer than 79 columns"),
    ("message = 'a string that cannot be broken without changing its bytes, it stays'\n",
     "the line `message = 'a string that canno…` would be longer than 79 columns and has no clean break"),
    # the first line of a statement already spread over lines: breaking it would misalign the lines after it
    ("value = compute(first_argument, second_argument, third_argument, fourth_arg,\n                fifth)\n",
     "the line `value = compute(first_argument…` would be longer than 79 columns and has no clean break"),
])
def test_lines_without_a_clean_break_are_reported(code, why):
    assert len(code.splitlines()[0]) <= 79
    assert deeper(code) == (code, why)


def test_lines_already_too_long_are_not_rewrapped():
    code = "x = f(" + ", ".join(["argument"] * 10) + ")\n"
    assert deeper(code) == (block(code), None)


def test_a_statement_with_a_line_that_cannot_be_wrapped_does_not_move():
    text = textwrap.dedent('''\
        import multiprocessing


        def work(x):
            return x


        pool = multiprocessing.Pool(2)
        banner = "a message long enough to pass the limit of the line once indented"
        print(banner, pool.map(work, [1, 2]))
        ''')
    assert max(len(line) for line in text.splitlines()) <= 79
    outcome = fix_text(text, "train.py", ALL, unsafe=True)
    assert outcome.text == text
    assert [f.code for f in outcome.unfixed] == ["WSP101"]
    assert "indented under the guard, the line `banner = \"a message long enoug…` would be longer than 79 " \
        "columns and has no clean break" in outcome.note


SAME_TEXT_DIFFERENT_NAMES = textwrap.dedent('''\
    from torch.utils.data import DataLoader

    scale = 2


    def train(ds):
        def collate(batch):
            return [item * scale for item in batch]

        return DataLoader(ds, num_workers=2, collate_fn=collate)


    def evaluate(ds, scale):
        def collate(batch):
            return [item * scale for item in batch]

        return DataLoader(ds, num_workers=2, collate_fn=collate)
    ''')


def test_identical_text_reading_different_scopes_is_not_shared():
    # `scale` is the module's in train() and evaluate()'s own parameter there: two different functions.
    outcome = fix_text(SAME_TEXT_DIFFERENT_NAMES, "train.py", ALL, unsafe=True)
    assert outcome.unfixed == []
    assert "def collate(batch):" in outcome.text
    assert "def _collate(scale, batch):" in outcome.text
    assert "collate = functools.partial(_collate, scale)" in outcome.text


def test_identical_local_definitions_are_hoisted_once():
    text = SAME_TEXT_DIFFERENT_NAMES.replace("def evaluate(ds, scale):", "def evaluate(ds):")
    outcome = fix_text(text, "train.py", ALL, unsafe=True)
    assert outcome.unfixed == []
    assert outcome.text.count("def collate(batch):") == 1
    assert outcome.text.count("def ") == 3


# A file that keeps to 79 columns (in one that does not, nothing is rewrapped).
HOISTED = '''\
from torch.utils.data import DataLoader


def main(dataset, tokenizer_for_the_training_set,
         augmentation_pipeline_for_images):
    def collate(PARAMS):
        return [tokenizer_for_the_training_set(b)
                for b in augmentation_pipeline_for_images(batch)]

    return DataLoader(dataset, collate_fn=collate, num_workers=2)
'''


@pytest.mark.parametrize("params, header", [
    # Too long on one row and on one continuation row: one parameter per row.
    ("batch", "def _collate(\n        tokenizer_for_the_training_set,\n        augmentation_pipeline_for_images,\n"
              "        batch):\n"),
    # The commas inside a default value's lambda separate nothing.
    ("batch=lambda a, b: a, other=2", "def _collate(\n        tokenizer_for_the_training_set,\n"
                                      "        augmentation_pipeline_for_images,\n        batch=lambda a, b: a,\n"
                                      "        other=2):\n"),
    # Not plain positional parameters: one continuation row.
    ("batch, *rest", "def _collate(\n        tokenizer_for_the_training_set, augmentation_pipeline_for_images, "
                     "batch, *rest):\n"),
    # A header row that fits is left as it is (the parameters' rows move to column 0 with the rest).
    ("  # why\n            batch", "def _collate(  # why\n        tokenizer_for_the_training_set, "
                                   "augmentation_pipeline_for_images, batch):\n"),
])
def test_a_hoisted_header_that_grew_too_long_is_wrapped(params, header):
    fixed = fix_text(HOISTED.replace("PARAMS", params), None, ALL, unsafe=True).text
    assert header in fixed
