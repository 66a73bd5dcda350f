"""Every fixture describes itself validly (a typo must fail here, not make a check vacuous)."""

from __future__ import annotations

import textwrap

import pytest

from fixture_spec import FIXTURES_DIR, FixtureSpecError, Outcome, all_fixtures, fixed_files, load_fixture

FIXTURES = all_fixtures()


@pytest.mark.parametrize("path", FIXTURES, ids=[p.name for p in FIXTURES])
def test_fixture_header_is_valid(path):
    fixture = load_fixture(path)
    if fixture.is_helper:
        assert fixture.spawn.kind == "not-run", f"{path}: helper modules (_*.py) must declare '# spawn: not-run helper'"


@pytest.mark.parametrize("path", fixed_files(), ids=[p.name for p in fixed_files()])
def test_fixed_file_has_a_partner(path):
    original = path.with_name(path.name[: -len(".fixed.py")] + ".py")
    assert original.is_file(), f"{path} has no fixture {original.name} beside it"


def test_fixtures_directory_exists():
    assert FIXTURES_DIR.is_dir()


# --- the parser itself --------------------------------------------------------------------------------


def _load(tmp_path, text, name="wsp999_probe.py"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(text).lstrip("\n"))
    return load_fixture(path)


def test_parses_expectations_and_outcomes(tmp_path):
    fixture = _load(tmp_path, '''
        """Docstring."""
        # spawn: crash PicklingError|AttributeError
        # fork: crash OperationalError
        import multiprocessing
        s = "# error: WSP999"
        t = """
        x = 1  # error: WSP101
        """
        f = lambda: 0  # error: WSP201, WSP302
        g = 1  # noqa: WSP201  # error: WSP201
    ''')
    assert fixture.expected == {(9, "WSP201"), (9, "WSP302"), (10, "WSP201")}
    assert fixture.spawn == Outcome("crash", names=("PicklingError", "AttributeError"))
    assert fixture.fork == Outcome("crash", names=("OperationalError",))


@pytest.mark.parametrize(
    "header, outcome",
    [
        ("# spawn: ok", Outcome("ok")),
        ("# spawn: noop", Outcome("noop")),
        ("# spawn: hang", Outcome("hang")),
        ("# spawn: repeats LOADING 3", Outcome("repeats", marker="LOADING", count=3)),
        ("# spawn: not-run needs lightning", Outcome("not-run", reason="needs lightning")),
    ],
)
def test_parses_each_outcome(tmp_path, header, outcome):
    fixture = _load(tmp_path, header + "\nx = 1\n")
    assert fixture.spawn == outcome
    assert fixture.fork == Outcome("ok")


@pytest.mark.parametrize(
    "text, message",
    [
        ("x = 1\n", "no '# spawn: <outcome>' header"),
        ("# spawn: okay\n", "unknown spawn outcome 'okay'"),
        ("# spawn: crahs TypeError\n", "unknown spawn outcome 'crahs'"),
        ("# spawn ok\n", "malformed header"),
        ("#spawn: ok\n", "malformed header"),
        ("# Spawn: ok\n", "malformed header"),
        ("# spawn: ok extra\n", "takes no argument"),
        ("# spawn: crash\n", "needs the error text"),
        ("# spawn: crash A||B\n", "needs the error text"),
        ("# spawn: repeats LOADING\n", "needs MARKER and a positive count"),
        ("# spawn: repeats LOADING three\n", "needs MARKER and a positive count"),
        ("# spawn: not-run\n", "needs a reason"),
        ("# spawn: ok\n# spawn: hang\n", "second '# spawn:' header"),
        ("# spawn: ok\n# fork: not-run x\n", "unknown fork outcome 'not-run'"),
        ("# spawn: not-run helper\n# fork: ok\n", "means nothing"),
        ("x = 1\n" * 15 + "# spawn: ok\n", "within the first 15 lines"),
        ("# spawn: ok\nx = 1  # error: WSP20\n", "bad rule code 'WSP20'"),
        ("# spawn: ok\nx = 1  # error: wsp201\n", "bad rule code"),
        ("# spawn: ok\nx = 1  # error WSP201\n", "malformed expectation"),
        ("# spawn: ok\nx = 1  # errors: WSP201\n", "malformed expectation"),
        ("# spawn: ok\nx = 1  # Error: WSP201\n", "malformed expectation"),
        ("# spawn: ok\nx = 1  # error: WSP201 WSP202\n", "bad rule code"),
        ("# spawn: ok\nx = 1  # error: WSP201, WSP201\n", "duplicate code"),
        ("# spawn: ok\nx = (\n", "cannot tokenize"),
    ],
)
def test_rejects_malformed(tmp_path, text, message):
    with pytest.raises(FixtureSpecError) as info:
        _load(tmp_path, text)
    assert message in str(info.value)
    assert "wsp999_probe.py" in str(info.value)


def test_all_fixtures_excludes_fixed_files(tmp_path):
    for name in ("a.py", "a.fixed.py", "_helper.py", "notes.md"):
        (tmp_path / name).write_text("# spawn: ok\n")
    assert [p.name for p in all_fixtures(tmp_path)] == ["_helper.py", "a.py"]
    assert [p.name for p in fixed_files(tmp_path)] == ["a.fixed.py"]
