"""Every fixture describes itself validly (a typo must fail here, not make a check vacuous)."""

from __future__ import annotations

import textwrap

import pytest

from fixture_spec import (FIXTURES_DIR, FixtureSpecError, Outcome, all_fixtures, all_projects, fixed_files, load_fixture,
                          load_project)

FIXTURES = all_fixtures()
PROJECTS = all_projects()


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


@pytest.mark.parametrize("folder", PROJECTS, ids=[p.name for p in PROJECTS])
def test_project_is_valid(folder):
    project = load_project(folder)
    twin = project.name.endswith("_ok")
    if project.spawn.kind in ("crash", "hang") or (project.spawn.kind == "repeats" and not twin):
        assert project.expected, f"{folder}: breaks under spawn ({project.spawn}) but no file expects a finding"
    if twin:
        hazard = folder.parent / project.name[:-3]
        assert hazard.is_dir(), f"{folder}: a safe twin of no project"
        if project.spawn.kind == "repeats":
            # Each spawned worker imports the script once, in the twin too: what it proves is that it does so
            # fewer times than the hazard (2 persistent workers: 3 imports in all, against 7 over 3 epochs).
            repeated = load_project(hazard).spawn
            assert not project.expected and repeated.kind == "repeats" and project.spawn.count < repeated.count, (
                f"{folder}: a safe twin that repeats must repeat less than its hazard ({repeated})")
        else:
            assert project.spawn.kind == "ok", f"{folder}: a safe twin must run under spawn, declared {project.spawn}"


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


# --- fixture projects ---------------------------------------------------------------------------------------


def _project(tmp_path, files: dict[str, str], name="probe"):
    folder = tmp_path / name
    for relative, text in files.items():
        (folder / relative).parent.mkdir(parents=True, exist_ok=True)
        (folder / relative).write_text(textwrap.dedent(text).lstrip("\n"))
    return folder


def test_parses_a_project(tmp_path):
    folder = _project(tmp_path, {
        "tools/train.py": """
            # run: cd tools && python train.py
            # spawn: crash AttributeError
            import sys
            sys.path.append("..")
            from lib.data import make
        """,
        "lib/__init__.py": "",
        "lib/data.py": """
            def make():
                return lambda: 0  # error: WSP201
        """,
        "README.md": "# error: WSP999 (not a Python file)",
    })
    project = load_project(folder)
    assert (project.entry, project.cwd, project.argv) == ("tools/train.py", "tools", ("train.py",))
    assert project.expected == {("lib/data.py", 2, "WSP201")}
    assert project.spawn == Outcome("crash", names=("AttributeError",)) and project.fork == Outcome("ok")
    assert project.files(".py") == ["lib/__init__.py", "lib/data.py", "tools/train.py"]


def test_parses_a_module_run(tmp_path):
    folder = _project(tmp_path, {"pkg/__init__.py": "", "pkg/main.py": "# run: python -m pkg.main\n# spawn: ok\n"})
    assert load_project(folder).argv == ("-m", "pkg.main")


def test_a_notebook_project_expects_cells(tmp_path):
    nbformat = pytest.importorskip("nbformat")
    from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

    folder = _project(tmp_path, {"data.py": "X = 1\n"})
    notebook = new_notebook(cells=[
        new_code_cell("# run: jupyter execute nb.ipynb\n# spawn: crash PicklingError\nimport data"),
        new_markdown_cell("text"),
        new_code_cell("x = 1\nf = lambda: 0  # error: WSP201"),
    ])
    nbformat.write(notebook, str(folder / "nb.ipynb"))
    project = load_project(folder)
    assert project.is_notebook and project.argv == ("nb.ipynb",)
    assert project.expected == {("nb.ipynb:cell 3", 2, "WSP201")}


@pytest.mark.parametrize(
    "files, message",
    [
        ({"a.py": "x = 1\n"}, "exactly one file, its entry; found headers in none"),
        ({"a.py": "# run: python a.py\n# spawn: ok\n", "b.py": "# spawn: ok\n"},
         "found headers in ['a.py', 'b.py']"),
        ({"a.py": "# spawn: ok\n"}, "no '# run: <command>' header"),
        ({"a.py": "# run: python b.py\n# spawn: ok\n", "b.py": ""}, "runs b.py, not this file"),
        ({"a.py": "# run: python ../a.py\n# spawn: ok\n"}, "runs ../a.py, not this file"),
        ({"a.py": "# run: python3 a.py\n# spawn: ok\n"}, "expected 'python SCRIPT.py'"),
        ({"a.py": "# run: python a.py --epochs 1\n# spawn: ok\n"}, "expected 'python SCRIPT.py'"),
        ({"a.py": "# run: python a.py\n# spawn: not-run helper\n"}, "every project runs"),
        ({"a.py": "# run: python a.py\n# spawn: ok\n# run: python a.py\n"}, "second '# run:' header"),
        ({"a.py": "# run: python a.py\n# spawn: ok\n", "b.py": "x = 1  # error: WSP2\n"}, "bad rule code"),
    ],
)
def test_rejects_malformed_project(tmp_path, files, message):
    with pytest.raises(FixtureSpecError) as info:
        load_project(_project(tmp_path, files))
    assert message in str(info.value)


def test_run_header_belongs_to_projects(tmp_path):
    with pytest.raises(FixtureSpecError, match="belongs to the entry script of a project"):
        _load(tmp_path, "# run: python wsp999_probe.py\n# spawn: ok\n")
