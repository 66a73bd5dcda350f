"""The language server end to end (``winspawn-lint server``): a real LSP client (pytest-lsp) talks to the server
process over stdio.

Specification: what the server shows for a document is what the command line says of the same text: its
diagnostics sit where ``--format json`` puts the findings (lines and character columns, in the client's position
encoding), per cell in a notebook; a quick fix applied gives what ``--fix`` writes for a file with that one
fixable finding, and "fix all" what ``--fix`` writes with the safe fixes; every edit is a small versioned
``TextEdit`` list, never the whole document; a file that does not parse is one diagnostic and the server goes
on.  The workspace is a copy of the fixtures with every rule selected and ``unsafe-fixes = true``.

One server serves this module (starting one costs about a second); the tests that change files on disk or
the configuration each have their own (``tests/test_server_session.py``).
"""

from __future__ import annotations

import asyncio
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pytest_lsp", reason="the language server's test dependencies are not installed")

import pytest_lsp  # noqa: E402
from lsprotocol import types  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient  # noqa: E402

from fixture_spec import FIXTURES_DIR  # noqa: E402
from lsp_session import SERVER, Session, make_client, offset, uri  # noqa: E402
from winspawn_lint import check_text, cli  # noqa: E402
from winspawn_lint.rules import RULES  # noqa: E402
from winspawn_lint.settings import Settings  # noqa: E402

pytestmark = pytest.mark.asyncio(loop_scope="module")

EXAMPLE = Path(__file__).resolve().parent.parent / "docs" / "examples" / "train_unsafe.py"
NOTEBOOKS = FIXTURES_DIR / "notebooks"
CONFIG = '[tool.winspawn-lint]\nselect = ["WSP"]\nunsafe-fixes = true\n'
RULE_PAGE = "https://github.com/winspawn-lint/winspawn-lint/blob/main/src/winspawn_lint/rule_docs/{}.md"


@pytest.fixture(scope="module")
def workspace(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("workspace")
    for path in FIXTURES_DIR.glob("*.py"):
        shutil.copy(path, root / path.name)
    # the notebooks, not the modules their fixes write
    shutil.copytree(NOTEBOOKS, root / "notebooks", ignore=lambda _, names: [n for n in names if n.endswith("_defs.py")])
    shutil.copy(EXAMPLE, root / EXAMPLE.name)
    (root / "pyproject.toml").write_text(CONFIG, encoding="utf-8")
    return root


def cli_json(root: Path, *paths: Path) -> dict[str, list[dict]]:
    """``winspawn-lint --format json`` on *paths*, run in *root*: absolute path -> its rows."""
    proc = subprocess.run([sys.executable, "-m", "winspawn_lint", "--format", "json", "--no-cache", "-j", "1",
                           *map(str, paths)], capture_output=True, text=True, cwd=root, timeout=600)
    assert proc.returncode in (0, 1), proc.stderr
    out: dict[str, list[dict]] = {str(p): [] for p in paths}
    for row in json.loads(proc.stdout):
        out[row["path"]].append(row)
    return out


def cli_fix(root: Path, path: Path, *flags: str) -> str:
    """What ``winspawn-lint --fix`` writes for *path*: run on a copy beside the same helpers and configuration."""
    copy = root / "cli-fix"
    copy.mkdir(exist_ok=True)
    for helper in [*FIXTURES_DIR.glob("_*.py"), root / "pyproject.toml"]:
        shutil.copy(helper, copy / helper.name)
    target = copy / path.name
    shutil.copy(path, target)
    cli.main(["--fix", "--no-cache", *flags, str(target)])
    return target.read_text(encoding="utf-8")


@pytest_lsp.fixture(scope="module", config=ClientServerConfig(server_command=SERVER, client_factory=make_client))
async def lsp(client: LanguageClient, workspace: Path):
    client.session = Session(client, workspace)  # type: ignore[attr-defined]
    client.session.initialized = await client.session.start()  # type: ignore[attr-defined]
    yield
    await client.session.shutdown()  # type: ignore[attr-defined]


@pytest.fixture(scope="module")
def session(lsp: LanguageClient) -> Session:
    return lsp.session  # type: ignore[attr-defined]


def as_cli(session: Session, document: str, diagnostic: types.Diagnostic) -> tuple:
    """A diagnostic as the command line's JSON places a finding: 1-based lines and character columns."""
    text = session.texts[document]
    start, end = diagnostic.range.start, diagnostic.range.end
    line_start = offset(text, start.line, 0, session.encoding)
    end_start = offset(text, end.line, 0, session.encoding)
    return (start.line + 1, offset(text, start.line, start.character, session.encoding) - line_start + 1,
            end.line + 1, offset(text, end.line, end.character, session.encoding) - end_start + 1,
            diagnostic.code)


def rows_of(rows: list[dict]) -> list[tuple]:
    return sorted((r["line"], r["col"], r["end_line"], r["end_col"], r["code"]) for r in rows)


# ------------------------------------------------------------------------------------------- diagnostics

async def test_the_server_says_what_it_does(session):
    for _ in range(1000):  # the server asks to watch files once initialized (bounded: 10 s)
        if session.client.registrations:
            break
        await asyncio.sleep(0.01)
    capabilities = session.initialized.capabilities
    assert session.initialized.server_info.name == "winspawn-lint"
    assert capabilities.text_document_sync.change == types.TextDocumentSyncKind.Incremental
    assert capabilities.hover_provider
    actions = capabilities.code_action_provider
    assert actions.resolve_provider and set(actions.code_action_kinds) == {
        "quickfix", "source.fixAll.winspawn-lint", "notebook.source.fixAll.winspawn-lint"}
    (selector,) = capabilities.notebook_document_sync.notebook_selector
    assert [c.language for c in selector.cells] == ["python"]
    (registration,) = [r for params in session.client.registrations for r in params.registrations]
    assert registration.method == "workspace/didChangeWatchedFiles"
    assert {w["globPattern"] for w in registration.register_options["watchers"]} >= {
        "**/*.py", "**/pyproject.toml", "**/setup.cfg", "**/tox.ini", "**/.flake8"}


async def test_diagnostics_are_where_the_command_line_puts_the_findings(session, workspace):
    # The example covers the families: import time (WSP101-103), callables (WSP201), state (WSP301), opt-in (WSP902).
    path = workspace / EXAMPLE.name
    document = session.open(path)
    found = await session.diagnostics(document, version=1)
    expected = cli_json(workspace, path)[str(path)]
    assert sorted(as_cli(session, document, d) for d in found) == rows_of(expected)
    assert {r["code"][:4] for r in expected} == {"WSP1", "WSP2", "WSP3", "WSP9"}
    messages = {r["code"]: r["message"] for r in expected}
    for diagnostic in found:
        rule = RULES[diagnostic.code]
        assert diagnostic.source == "winspawn-lint"
        assert diagnostic.message.startswith(messages[diagnostic.code]) and diagnostic.message.endswith("]")
        assert diagnostic.code_description.href == RULE_PAGE.format(diagnostic.code)
        assert diagnostic.severity == (types.DiagnosticSeverity.Warning if rule.default
                                       else types.DiagnosticSeverity.Information)


@pytest.mark.slow
async def test_every_fixture_s_diagnostics_are_the_command_line_s(session, workspace):
    paths = sorted(p for p in workspace.glob("*.py") if not p.name.endswith(".fixed.py"))
    expected = cli_json(workspace, *paths)
    for path in paths:
        count = session.count
        document = session.open(path)
        found = await session.diagnostics(document, version=1, after=count)
        if any(d.severity == types.DiagnosticSeverity.Error for d in found):
            continue  # does not parse: the command line says so on stderr (its own test is below)
        assert sorted(as_cli(session, document, d) for d in found) == rows_of(expected[str(path)]), path.name
        session.close(document)


async def test_positions_count_utf16_units_and_lines_end_where_python_says(session, workspace):
    # A form feed is not a line end (str.splitlines would say it is), and 😀 is two UTF-16 units.
    text = ("from torch.utils.data import DataLoader\n\x0c\n"
            "def f(data):\n    return DataLoader(data, num_workers=2, collate_fn=lambda b: b)\n")
    path = workspace / "positions.py"
    document = session.open(path, text)
    await session.diagnostics(document, version=1)
    version = session.change(document, (3, 4), (3, 4), "s = '😀'; ")  # an incremental edit after the form feed
    (found,) = await session.diagnostics(document, version=version)
    assert session.texts[document].split("\n")[3] == \
        "    s = '😀'; return DataLoader(data, num_workers=2, collate_fn=lambda b: b)"
    (expected,) = check_text(session.texts[document], str(path), Settings(select=frozenset(RULES)))
    assert as_cli(session, document, found) == (expected.line, expected.col + 1, expected.end_line,
                                                 expected.end_col + 1, expected.code)
    assert (found.range.start.line, found.range.start.character) == (3, expected.col + 1)  # 😀: one more unit


async def test_a_file_that_does_not_parse_is_one_diagnostic_and_the_server_goes_on(session, workspace):
    path = workspace / "broken.py"
    document = session.open(path, "from multiprocessing import Pool\n\ndef f(:\n    pass\n")
    (found,) = await session.diagnostics(document, version=1)
    assert found.severity == types.DiagnosticSeverity.Error and found.source == "winspawn-lint"
    assert found.range.start.line == 2 and "syntax error at line 3" in found.message
    version = session.replace(document, "from multiprocessing import Pool\nPool(2).map(abs, [1])\n")
    assert [d.code for d in await session.diagnostics(document, version=version)] == ["WSP101"]


async def test_an_untitled_buffer_is_checked(session):
    document = "untitled:Untitled-1"
    session.texts[document], session.versions[document] = "", 1
    session.client.text_document_did_open(types.DidOpenTextDocumentParams(types.TextDocumentItem(
        uri=document, language_id="python", version=1,
        text="from multiprocessing import Pool\nPool(2).map(lambda x: x, [1])\n")))
    assert {d.code for d in await session.diagnostics(document, version=1)} == {"WSP101", "WSP201"}


# ------------------------------------------------------------------------------------------- code actions

def _titles(actions):
    return [a.title for a in actions]


async def _fixes(session, document, diagnostic) -> list[types.CodeAction]:
    """The quick fixes offered for *diagnostic* ("Disable" aside)."""
    actions = await session.actions(document, (diagnostic.range.start.line, diagnostic.range.start.character))
    return [a for a in actions or () if a.kind == "quickfix" and diagnostic.code in a.title
            and "Disable" not in a.title and a.diagnostics[0].range == diagnostic.range]


async def _quick_fix(session, document, diagnostic) -> types.CodeAction:
    (fix,) = await _fixes(session, document, diagnostic)
    return await session.resolved(fix)


async def _check_quick_fix(session, workspace, name) -> types.CodeAction:
    """Open fixture *name* (one fixable finding), apply its quick fix, compare with --fix --unsafe-fixes."""
    path = workspace / f"{name}.py"
    count = session.count
    document = session.open(path)
    # A diagnostic's data says what the rule's fix is in this file; its code actions plan it (the fixer may
    # decline it here), as they are asked for.
    found = await session.diagnostics(document, version=1, after=count)
    fixable = [d for d in found if d.data["fix"] != "none" and await _fixes(session, document, d)]
    assert len(fixable) == 1, name
    fix = await _quick_fix(session, document, fixable[0])
    assert fix.edit is not None, (name, session.client.messages[-1:])
    (change,) = fix.edit.document_changes
    old = session.texts[document]
    replaced = sum(offset(old, e.range.end.line, e.range.end.character, session.encoding)
                   - offset(old, e.range.start.line, e.range.start.character, session.encoding) for e in change.edits)
    assert replaced < len(old) / 2, "the edits replace most of the text"
    assert session.apply(fix.edit)[document] == (FIXTURES_DIR / f"{name}.fixed.py").read_text(encoding="utf-8"), name
    session.close(document)
    return fix


@pytest.mark.parametrize("name, unsafe", [("wsp201_dataloader_collate_lambda", False), ("wsp101_pool_top_level", False),
                                          ("wsp106_dataset_class_under_guard", True), ("wsp301_open_file", True)])
async def test_a_quick_fix_is_what_fix_writes(session, workspace, name, unsafe):
    fix = await _check_quick_fix(session, workspace, name)
    assert fix.title.endswith("(unsafe fix)") == unsafe and fix.is_preferred == (not unsafe)


@pytest.mark.slow
async def test_every_quick_fix_is_what_fix_writes(session, workspace):
    checked = 0
    for fixed in sorted(FIXTURES_DIR.glob("*.fixed.py")):
        name = fixed.name[: -len(".fixed.py")]
        text = (workspace / f"{name}.py").read_text(encoding="utf-8")
        findings = check_text(text, str(workspace / f"{name}.py"), Settings(select=frozenset(RULES)))
        if len([f for f in findings if f.rule.fix_safety.value != "none"]) != 1:
            continue
        await _check_quick_fix(session, workspace, name)
        checked += 1
    assert checked >= 50


@pytest.mark.slow
async def test_every_fix_all_is_what_fix_writes_with_the_safe_fixes(session, workspace):
    for fixed in sorted(FIXTURES_DIR.glob("*.fixed.py")):
        path = workspace / fixed.name.replace(".fixed.py", ".py")
        count = session.count
        document = session.open(path)
        await session.diagnostics(document, version=1, after=count)
        actions = await session.actions(document, (0, 0), only=["source.fixAll"])
        expected = cli_fix(workspace, path, "--no-unsafe-fixes")
        if not actions:
            assert expected == session.texts[document], path.name
        else:
            fix_all = await session.resolved(actions[0])
            got = session.apply(fix_all.edit)[document] if fix_all.edit else session.texts[document]
            assert got == expected, path.name
        session.close(document)


async def test_fix_all_is_what_fix_writes_with_the_safe_fixes(session, workspace):
    path = workspace / EXAMPLE.name
    document = uri(path)
    if document not in session.texts:
        session.open(path)
    actions = await session.actions(document, (0, 0), only=["source.fixAll"])
    (fix_all,) = actions
    assert fix_all.kind == "source.fixAll.winspawn-lint" and fix_all.edit is None  # resolved when chosen
    fix_all = await session.resolved(fix_all)
    assert session.apply(fix_all.edit)[document] == cli_fix(workspace, path, "--no-unsafe-fixes")


async def test_disable_for_this_line(session, workspace):
    path = workspace / "wsp201_two_lambdas.py"
    document = session.open(path)
    found = await session.diagnostics(document, version=1)
    target = found[0]
    actions = await session.actions(document, (target.range.start.line, target.range.start.character))
    (disable,) = [a for a in actions if a.title == f"winspawn-lint ({target.code}): Disable {target.code} for this line"]
    new = session.apply(disable.edit)[document]
    assert f"  # noqa: {target.code}" in new.splitlines()[target.range.start.line]
    version = session.replace(document, new)
    after = await session.diagnostics(document, version=version)
    assert [d.range.start.line for d in after] == [d.range.start.line for d in found[1:]]


async def test_hover_shows_the_rule_s_page(session, workspace):
    document = session.open(workspace / "wsp201_pool_map_lambda.py")
    (found,) = await session.diagnostics(document, version=1)
    start = found.range.start
    hover = await session.client.text_document_hover_async(types.HoverParams(
        types.TextDocumentIdentifier(document), types.Position(start.line, start.character + 1)))
    assert hover.contents.kind == types.MarkupKind.Markdown
    assert hover.contents.value == RULES["WSP201"].docs() and hover.range == found.range
    nothing = await session.client.text_document_hover_async(types.HoverParams(
        types.TextDocumentIdentifier(document), types.Position(0, 0)))
    assert nothing is None


# ------------------------------------------------------------------------------------------- notebooks

def _cells(path: Path) -> list[tuple[str, str]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    out = []
    for cell in data["cells"]:
        source = cell.get("source", "")
        out.append(("code" if cell["cell_type"] == "code" else "markdown",
                    "".join(source) if isinstance(source, list) else source))
    return out


async def test_a_notebook_s_diagnostics_are_per_cell(session, workspace):
    path = workspace / "notebooks" / "wsp201_in_notebook.ipynb"
    notebook, cells = session.open_notebook(path, _cells(path))
    expected = cli_json(workspace, path)[str(path)]
    assert expected
    for number, cell in enumerate(cells, start=1):
        if _cells(path)[number - 1][0] != "code":
            continue
        found = await session.diagnostics(cell)
        want = [r for r in expected if r["cell"] == number]
        assert sorted(as_cli(session, cell, d) for d in found) == rows_of(want)


async def test_a_notebook_quick_fix_moves_definitions_into_a_new_module(session, workspace):
    stem = "wsp206_dataloader"
    path = workspace / "notebooks" / f"{stem}.ipynb"
    notebook, cells = session.open_notebook(path, _cells(path))
    found = {cell: await session.diagnostics(cell) for cell, (kind, _) in zip(cells, _cells(path)) if kind == "code"}
    cell, diagnostic = next((c, d) for c, ds in found.items() for d in ds if d.code == "WSP206")
    fix = await _quick_fix(session, cell, diagnostic)
    assert fix.title.endswith("(unsafe fix)")
    create, module, *edits = fix.edit.document_changes
    assert isinstance(create, types.CreateFile) and create.uri == uri(path.parent / f"{stem}_defs.py")
    new = session.apply(fix.edit)
    assert new[create.uri] == (NOTEBOOKS / f"{stem}_defs.py").read_text(encoding="utf-8")
    fixed = _cells(NOTEBOOKS / f"{stem}.fixed.ipynb")
    for cell_uri, (_, text) in zip(cells, fixed):
        assert new.get(cell_uri, session.texts.get(cell_uri, text)) == text
