"""The language server over a session in which files change: each test has its own server and workspace.

Specification: other modules are read from disk, and a change on disk to one that an open document's findings
read (reported by the client's file watcher, or by saving it in the editor) checks that document again; so does
a change to the configuration, which the server reads as the command line does; a quick fix that is unsafe is
offered only when the configuration allows unsafe fixes; a checked document is checked once after a burst of
changes (debounce); ``shutdown`` then ``exit`` ends the process with status 0; without the ``lsp`` extra the
command says how to install it and exits 2.
"""

from __future__ import annotations

import asyncio
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("pytest_lsp", reason="the language server's test dependencies are not installed")

import pytest_lsp  # noqa: E402
from lsprotocol import types  # noqa: E402
from pytest_lsp import ClientServerConfig, LanguageClient  # noqa: E402

from lsp_session import SERVER, TIMEOUT, Session, capabilities, make_client, uri  # noqa: E402

TRAIN = textwrap.dedent('''\
    from config import WORKERS
    from torch.utils.data import DataLoader

    loader = DataLoader(range(8), num_workers=WORKERS, collate_fn=lambda b: b)
    for batch in loader:
        print(batch)
''')


@pytest_lsp.fixture(config=ClientServerConfig(server_command=SERVER, client_factory=make_client))
async def client(lsp_client: LanguageClient):
    yield
    if lsp_client.capabilities is not None and lsp_client.error is None and lsp_client._server and \
            lsp_client._server.returncode is None:
        await asyncio.wait_for(lsp_client.shutdown_session(), TIMEOUT)


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


async def started(client: LanguageClient, root: Path, files: dict[str, str], caps=None) -> Session:
    """A session on *root*, holding *files* (name -> text), initialized with *caps* (VS Code's by default)."""
    for name, text in files.items():
        write(root / name, text)
    session = Session(client, root)
    await session.start(caps)
    return session


def notify_changed(session: Session, *paths: Path) -> None:
    session.client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[
        types.FileEvent(uri=uri(path), type=types.FileChangeType.Changed) for path in paths]))


def codes(found) -> list[str]:
    return sorted(d.code for d in found)


@pytest.mark.asyncio
async def test_a_module_changed_on_disk_checks_the_documents_that_read_it_again(client, tmp_path):
    session = await started(client, tmp_path, {"pyproject.toml": "[tool.winspawn-lint]\n", "config.py": "WORKERS = 0\n",
                                               "unrelated.py": "X = 1\n", "train.py": TRAIN})
    config = tmp_path / "config.py"
    document = session.open(tmp_path / "train.py")
    assert await session.diagnostics(document, version=1) == []  # no workers: nothing is pickled
    count = session.count
    write(tmp_path / "unrelated.py", "X = 2\n")
    notify_changed(session, tmp_path / "unrelated.py")  # train.py does not read it: not checked again
    await asyncio.sleep(0.5)
    assert [p for p in session.client.published[count:] if p.uri == document] == []
    write(config, "WORKERS = 2\n")
    notify_changed(session, config)
    assert codes(await session.diagnostics(document, after=count)) == ["WSP101", "WSP201"]


@pytest.mark.asyncio
@pytest.mark.slow
async def test_saving_a_module_in_the_editor_checks_its_dependents_without_a_file_watcher(client, tmp_path):
    # Neovim's recorded capabilities have no dynamic file watching: saving in the editor is what tells.
    session = await started(client, tmp_path, {"config.py": "WORKERS = 0\n", "train.py": TRAIN},
                            capabilities("neovim"))
    assert session.encoding == "utf-8"  # Neovim prefers it
    config = tmp_path / "config.py"
    document = session.open(tmp_path / "train.py")
    assert await session.diagnostics(document, version=1) == []
    module = session.open(config)
    count = session.count
    version = session.replace(module, "WORKERS = 4\n")  # typed, not saved: the disk still says 0
    await session.diagnostics(module, version=version)
    await asyncio.sleep(0.3)
    assert [p for p in session.client.published[count:] if p.uri == document] == []
    config.write_text("WORKERS = 4\n", encoding="utf-8")
    session.client.text_document_did_save(types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(module)))
    assert codes(await session.diagnostics(document, after=count)) == ["WSP101", "WSP201"]


@pytest.mark.asyncio
async def test_a_configuration_change_checks_every_open_document_again(client, tmp_path):
    session = await started(client, tmp_path, {"pyproject.toml": "[tool.winspawn-lint]\n", "config.py": "WORKERS = 2\n",
                                               "train.py": TRAIN})
    pyproject = tmp_path / "pyproject.toml"
    document = session.open(tmp_path / "train.py")
    assert codes(await session.diagnostics(document, version=1)) == ["WSP101", "WSP201"]
    count = session.count
    write(pyproject, '[tool.winspawn-lint]\nignore = ["WSP201"]\n')
    notify_changed(session, pyproject)
    assert codes(await session.diagnostics(document, after=count)) == ["WSP101"]
    count = session.count
    write(pyproject, '[tool.winspawn-lint]\nselct = ["WSP201"]\n')  # a mistake: said once, where it is seen
    notify_changed(session, pyproject)
    (error,) = await session.diagnostics(document, after=count)
    assert error.severity == types.DiagnosticSeverity.Error and "unknown key 'selct'" in error.message


@pytest.mark.asyncio
async def test_a_worker_api_the_configuration_names_leads_the_project_search_as_on_the_command_line(
        client, tmp_path):
    """The project's search of imports reads each file's text for the worker APIs of the settings it is checked
    with: a script that hands a lambda to a helper calling a configured API has the command line's finding (the
    server's search once looked for the built-in APIs only, and the script, naming none, was skipped)."""
    session = await started(client, tmp_path, {
        "pyproject.toml": '[tool.winspawn-lint]\nspawn-api = [{name = "mylib.run_all", workers = "n_jobs", '
                          'payload = ["fn:0"]}]\n',
        "helpers.py": "import mylib\n\n\ndef run(fn):\n    mylib.run_all(fn, n_jobs=4)\n",
        "train.py": 'from helpers import run\n\nif __name__ == "__main__":\n    run(lambda x: x)\n'})
    document = session.open(tmp_path / "train.py")
    assert codes(await session.diagnostics(document, version=1)) == ["WSP201"]


@pytest.mark.asyncio
async def test_an_unsafe_fix_is_offered_only_when_the_configuration_allows_it(client, tmp_path):
    pyproject = write(tmp_path / "pyproject.toml", "[tool.winspawn-lint]\n")
    script = write(tmp_path / "guard.py", '''\
        import multiprocessing


        def work(x):
            return x


        if __name__ == "main":
            with multiprocessing.Pool(2) as pool:
                pool.map(work, [1])
    ''')
    session = Session(client, tmp_path)
    await session.start()
    document = session.open(script)
    (broken,) = await session.diagnostics(document, version=1)
    assert broken.code == "WSP102" and broken.data["fix"] == "unsafe"
    at = (broken.range.start.line, broken.range.start.character)
    assert [a.title for a in await session.actions(document, at)] == \
        ["winspawn-lint (WSP102): Disable WSP102 for this line"]
    count = session.count
    write(pyproject, "[tool.winspawn-lint]\nunsafe-fixes = true\n")
    notify_changed(session, pyproject)
    await session.diagnostics(document, after=count)
    fix, _ = await session.actions(document, at)
    assert fix.title == "winspawn-lint (WSP102): Repair the main guard (unsafe fix)"
    assert 'if __name__ == "__main__":' in session.apply((await session.resolved(fix)).edit)[document]


@pytest.mark.asyncio
@pytest.mark.slow
async def test_a_client_that_cannot_resolve_gets_the_edits_with_the_actions(client, tmp_path):
    # Emacs's recorded capabilities (eglot): no codeAction/resolve, positions in code points.
    script = write(tmp_path / "train.py", '''\
        from multiprocessing import Pool

        def main():
            with Pool(2) as pool:
                pool.map(lambda x: x * 2, range(3))  # é
    ''')
    session = Session(client, tmp_path)
    await session.start(capabilities("emacs"))
    assert session.encoding == "utf-32"
    document = session.open(script)
    (found,) = await session.diagnostics(document, version=1)
    actions = await session.actions(document, (found.range.start.line, found.range.start.character))
    assert all(a.edit is not None for a in actions)
    new = session.apply(actions[0].edit)[document]
    assert "pool.map(_lambda, range(3))" in new or "def _" in new


@pytest.mark.asyncio
@pytest.mark.slow
async def test_a_burst_of_changes_is_checked_once(tmp_path):
    config = ClientServerConfig(server_command=[*SERVER[:-1], "300"], client_factory=make_client)
    client = await config.start()
    try:
        session = Session(client, tmp_path)
        await session.start()
        document = session.open(write(tmp_path / "train.py", "from multiprocessing import Pool\n"), )
        await session.diagnostics(document, version=1)
        count = session.count
        for index in range(5):
            session.change(document, (1, 0), (1, 0), "Pool(2).map(abs, [1])\n" if index == 4 else "")
        found = await session.diagnostics(document, version=6, after=count)
        assert codes(found) == ["WSP101"]
        await asyncio.sleep(0.5)
        assert [p.version for p in client.published[count:] if p.uri == document] == [6]
        await session.shutdown()
    finally:
        await client.stop()


@pytest.mark.asyncio
@pytest.mark.slow
async def test_an_excluded_file_has_no_diagnostics(client, tmp_path):
    write(tmp_path / "pyproject.toml", '[tool.winspawn-lint]\nextend-exclude = ["generated"]\n')
    script = write(tmp_path / "generated" / "train.py", "from multiprocessing import Pool\nPool(2).map(abs, [1])\n")
    session = Session(client, tmp_path)
    await session.start()
    assert await session.diagnostics(session.open(script), version=1) == []


@pytest.mark.asyncio
async def test_shutdown_then_exit_ends_the_process_with_status_0(client, tmp_path):
    session = Session(client, tmp_path)
    await session.start()
    session.open(write(tmp_path / "train.py", "from multiprocessing import Pool\nPool(2).map(abs, [1])\n"))
    await session.shutdown()
    assert client._server.returncode == 0


def test_without_the_lsp_extra_the_command_says_how_to_install_it():
    blocked = "import sys; sys.modules['pygls'] = None; from winspawn_lint.cli import main; sys.exit(main(['server']))"
    proc = subprocess.run([sys.executable, "-c", blocked], capture_output=True, text=True, timeout=120,
                          stdin=subprocess.DEVNULL)
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.count("\n") == 1 and "pip install 'winspawn-lint[lsp]'" in proc.stderr
