"""Property tests: no program makes the analysis raise, and every ``--fix`` output is sound.

* programs from the Python grammar (hypothesmith);
* mutations: the hazardous statements of the fixtures (those with a ``# error:`` line) inserted at random
  statement positions of other fixtures.

For each program: ``check_text`` raises nothing but ``SourceError``; when ``fix_text`` rewrites it, the output
compiles, re-checks with no fixable finding of a code it fixed, and a second fix changes nothing.

Seeded and bounded for CI (``FUZZ_EXAMPLES`` examples per test).  A long run::

    WINSPAWN_FUZZ_EXAMPLES=20000 python -m pytest tests/test_fuzz.py -p no:randomly -q
"""

from __future__ import annotations

import ast
import os
import re
import textwrap
from pathlib import Path

import pytest

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

from winspawn_lint import RULES, check_text  # noqa: E402
from winspawn_lint.settings import Settings  # noqa: E402
from winspawn_lint.io.source import SourceError  # noqa: E402

FIXTURES = Path(__file__).resolve().parent / "fixtures"
FUZZ_EXAMPLES = int(os.environ.get("WINSPAWN_FUZZ_EXAMPLES", "0") or 0)
ALL_RULES = Settings(select=frozenset(RULES))
ERROR_COMMENT = re.compile(r"#\s*error:")
pytestmark = [
    pytest.mark.slow,
    pytest.mark.filterwarnings("ignore::SyntaxWarning"),  # compile() on generated code: `1 is 1`...
]


def budget(default: int) -> settings:
    return settings(max_examples=FUZZ_EXAMPLES or default, derandomize=True, deadline=None, database=None,
                    suppress_health_check=list(HealthCheck), print_blob=True)


def check_never_raises(text: str) -> list:
    try:
        return check_text(text, "fuzz.py", ALL_RULES, prefilter=False)
    except SourceError:
        return []


def fix_is_sound(text: str, unsafe: bool = True) -> None:
    """The --fix properties, when the fixer rewrites *text*."""
    from winspawn_lint import fix_text
    from winspawn_lint.fix import FIXABLE, _allowed

    try:
        compile(text, "fuzz.py", "exec", dont_inherit=True)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return  # the fixer only promises sound output for input that compiles
    outcome = fix_text(text, "fuzz.py", ALL_RULES, unsafe=unsafe)
    if outcome.text == text:
        return
    compile(outcome.text, "fuzz.py", "exec", dont_inherit=True)  # raises if the fix broke the file
    fixed_codes = {f.code for f in outcome.fixed}
    assert {f.rule for f in outcome.fixed} <= FIXABLE
    again = check_text(outcome.text, "fuzz.py", ALL_RULES)
    leftover = [f for f in again if f.code in fixed_codes and _allowed(f, unsafe)]
    second = fix_text(outcome.text, "fuzz.py", ALL_RULES, unsafe=unsafe)
    assert second.text == outcome.text, "a second --fix changed the file again"
    # what is left of a fixed code is what the fixer declined (second fix no-op), and reported as remaining
    assert sorted(f.sort_key() for f in leftover) == sorted(
        f.sort_key() for f in outcome.remaining if f.code in fixed_codes and _allowed(f, unsafe))


# --- programs from the grammar ------------------------------------------------------------------------------

hypothesmith = pytest.importorskip("hypothesmith")


# hypothesmith's auto_target makes hypothesis grow programs in a target phase; fine for 100 examples, but a long
# run spent 55 CPU minutes there before its 5,000th example, so a long run generates without it.
@budget(100)
@given(hypothesmith.from_grammar(auto_target=not FUZZ_EXAMPLES))
def test_grammar_programs_never_crash_the_analysis(text):
    check_never_raises(text)
    fix_is_sound(text)


# --- fixtures with hazardous statements inserted ------------------------------------------------------------

def _fixture_sources() -> dict[str, str]:
    return {path.name: path.read_text(encoding="utf-8") for path in sorted(FIXTURES.glob("*.py"))}


def _hazardous_statements(sources: dict[str, str]) -> list[str]:
    """The smallest statement around every `# error:` line of every fixture, dedented, without the comments."""
    shapes: set[str] = set()
    for text in sources.values():
        lines = text.splitlines()
        error_lines = {i + 1 for i, line in enumerate(lines) if ERROR_COMMENT.search(line)}
        if not error_lines:
            continue
        tree = ast.parse(text)
        for line in error_lines:
            best = None
            for node in ast.walk(tree):
                if isinstance(node, ast.stmt) and _first_line(node) <= line <= node.end_lineno:
                    if best is None or node.end_lineno - _first_line(node) < best.end_lineno - _first_line(best):
                        best = node
            if best is None:
                continue
            segment = textwrap.dedent("\n".join(ERROR_COMMENT.split(source_line)[0].rstrip()
                                                for source_line in lines[_first_line(best) - 1: best.end_lineno]))
            try:
                ast.parse(segment)
            except SyntaxError:
                continue
            shapes.add(segment.rstrip() + "\n")
    return sorted(shapes)


def _first_line(node: ast.stmt) -> int:
    decorators = getattr(node, "decorator_list", None)
    return min([node.lineno, *(d.lineno for d in decorators)]) if decorators else node.lineno


def _insertion_points(text: str) -> list[tuple[int, int]]:
    """(0-based line index, indentation) before which a statement can be inserted."""
    tree = ast.parse(text)
    points = {(len(text.splitlines()), 0)}
    for node in ast.walk(tree):
        if isinstance(node, ast.stmt):
            if isinstance(node, ast.ImportFrom) and node.module == "__future__":
                continue
            points.add((_first_line(node) - 1, node.col_offset))
    return sorted(points)


SOURCES = _fixture_sources()
SHAPES = _hazardous_statements(SOURCES)
BASES = sorted(name for name, text in SOURCES.items() if not text.lstrip().startswith("from __future__"))


def test_there_are_shapes_to_insert():
    assert len(SHAPES) >= 30 and len(BASES) >= 30


@st.composite
def mutated_programs(draw) -> str:
    text = SOURCES[draw(st.sampled_from(BASES))]
    lines = text.splitlines()
    points = _insertion_points(text)
    inserts = draw(st.lists(st.tuples(st.sampled_from(points), st.sampled_from(SHAPES)), min_size=1, max_size=3))
    for (index, indent), shape in sorted(inserts, key=lambda item: -item[0][0]):
        lines[index:index] = textwrap.indent(shape, " " * indent).splitlines()
    return "\n".join(lines) + "\n"


@budget(100)
@given(mutated_programs())
def test_fixtures_with_hazards_inserted_never_crash_the_analysis(text):
    findings = check_never_raises(text)
    assert all(f.code in RULES for f in findings)
    fix_is_sound(text)


@pytest.mark.parametrize("name", sorted(SOURCES))
def test_every_fixture_fix_is_sound(name):
    check_never_raises(SOURCES[name])
    fix_is_sound(SOURCES[name])
