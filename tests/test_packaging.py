"""Packaging: sdist and wheel build, ``twine check`` passes, and the wheel works in a fresh virtualenv.

Offline, and from what the running interpreter has: the package is built
without build isolation (the build backend is a declared test dependency), and
the fresh virtual environment -- no system site-packages -- gets the wheel and
its declared dependencies from the wheelhouse (``conftest.wheelhouse``: the
installed distributions packed back into wheels) with ``--no-index``.  A
dependency the code imports but the metadata does not declare is therefore
missing there, and the tests below fail.  They also check that the venv really
imports the wheel's copy, not this checkout.
"""

from __future__ import annotations

import ast
import email
import json
import importlib.util
import os
import re
import shutil
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest
from samples import LAMBDA_POOL
from wheelhouse import pip_environment

from winspawn_lint import __version__
from winspawn_lint.rules import RULES

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parent.parent


def _run(*command: str, cwd: Path | None = None, env: dict | None = None, timeout: float = 300):
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def _describe(done: subprocess.CompletedProcess) -> str:
    command = " ".join(map(str, done.args))
    return f"{command}\nexit {done.returncode}\n--- stdout\n{done.stdout}\n--- stderr\n{done.stderr}"


@pytest.fixture(scope="session")
def dists(shared_tmp) -> dict[str, Path]:
    """{"sdist": ..., "wheel": ...} built from a copy of the checkout (the checkout is left untouched)."""
    from filelock import FileLock

    shared = shared_tmp
    out = shared / "dist"
    with FileLock(str(shared / "dist.lock")):
        if not out.is_dir():
            source = shared / "package-source"
            source.mkdir()
            for name in ("pyproject.toml", "README.md", "LICENSE", "setup.cfg", "MANIFEST.in"):
                if (ROOT / name).is_file():
                    shutil.copy2(ROOT / name, source / name)
            shutil.copytree(ROOT / "src", source / "src",
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.egg-info"))
            # The default (no --sdist/--wheel) builds the wheel *from the sdist*: a file the sdist
            # forgets makes the wheel incomplete, and the tests below notice.
            done = _run(sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out) + ".tmp", str(source))
            assert done.returncode == 0, _describe(done)
            os.rename(str(out) + ".tmp", out)
    (sdist,) = out.glob("*.tar.gz")
    (wheel,) = out.glob("*.whl")
    return {"sdist": sdist, "wheel": wheel}


def test_version_lives_in_one_place():
    from winspawn_lint.settings import tomllib

    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in pyproject["project"] and "version" in pyproject["project"]["dynamic"]
    assert pyproject["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "winspawn_lint.__version__.__version__"}
    assigned = [p for p in (ROOT / "src").rglob("*.py") if re.search(r"^__version__\s*=", p.read_text("utf-8"), re.M)]
    assert [p.relative_to(ROOT).as_posix() for p in assigned] == ["src/winspawn_lint/__version__.py"]


def test_readme_has_no_links_that_break_on_pypi():
    readme = ROOT / "README.md"
    assert readme.is_file(), "README.md is the package's long description (pyproject: readme)"
    text = readme.read_text(encoding="utf-8")
    targets = re.findall(r"\]\(\s*<?([^)\s>]+)", text) + re.findall(r"^\s*\[[^\]]+\]:\s*(\S+)", text, re.M)
    targets += re.findall(r"""<(?:img|a)\b[^>]*?\b(?:src|href)=["']([^"']+)""", text)
    relative = [t for t in targets if not re.match(r"(https?:|mailto:|#)", t)]
    assert not relative, f"relative links do not resolve on PyPI; use absolute URLs: {relative}"


def test_twine_check(dists):
    done = _run(sys.executable, "-m", "twine", "check", "--strict", str(dists["sdist"]), str(dists["wheel"]))
    assert done.returncode == 0, _describe(done)
    assert done.stdout.count("PASSED") == 2, _describe(done)


def test_wheel_contents_and_metadata(dists):
    with zipfile.ZipFile(dists["wheel"]) as wheel:
        names = set(wheel.namelist())
        info = f"winspawn_lint-{__version__}.dist-info"
        metadata = email.message_from_string(wheel.read(f"{info}/METADATA").decode("utf-8"))
        entry_points = wheel.read(f"{info}/entry_points.txt").decode("utf-8")
    assert dists["wheel"].name == f"winspawn_lint-{__version__}-py3-none-any.whl"
    assert "winspawn_lint/py.typed" in names
    assert "winspawn_lint/runtime/_emulation/sitecustomize.py" in names
    assert {f"winspawn_lint/rule_docs/{code}.md" for code in RULES} <= names
    assert not [n for n in names if "__pycache__" in n or n.startswith(("tests/", "src/"))]

    assert metadata["Name"] == "winspawn-lint" and metadata["Version"] == __version__
    assert metadata["License-Expression"] == "MIT"
    assert metadata["Requires-Python"]
    requires = metadata.get_all("Requires-Dist") or []
    assert any(r.startswith("astroid") for r in requires) and any(r.startswith("libcst") for r in requires)
    classifiers = metadata.get_all("Classifier") or []
    for expected in ("Framework :: Flake8", "Framework :: Pytest", "Typing :: Typed",
                     "Programming Language :: Python :: 3"):
        assert expected in classifiers
    urls = dict(u.split(", ", 1) for u in metadata.get_all("Project-URL") or [])
    assert {"Homepage", "Documentation", "Issues"} <= set(urls) and all(u.startswith("https://") for u in urls.values())
    assert metadata["Description-Content-Type"] == "text/markdown"
    assert metadata.get_payload().strip(), "empty long description"

    assert re.search(r"^\[console_scripts\]\nwinspawn-lint = winspawn_lint.cli:entry$", entry_points, re.M)
    assert re.search(r"^\[flake8.extension\]\nWSP = winspawn_lint.flake8_plugin:Plugin$", entry_points, re.M)
    assert re.search(r"^\[pytest11\]\nwinspawn_lint = winspawn_lint.runtime.pytest_plugin$", entry_points, re.M)


def test_sdist_contents(dists):
    with tarfile.open(dists["sdist"]) as sdist:
        names = {name.split("/", 1)[1] for name in sdist.getnames() if "/" in name}
    for expected in ("pyproject.toml", "README.md", "PKG-INFO", "src/winspawn_lint/__init__.py",
                     "src/winspawn_lint/py.typed", "src/winspawn_lint/rule_docs/WSP201.md"):
        assert expected in names


@pytest.fixture(scope="session")
def venv(dists, wheelhouse, tmp_path_factory) -> Path:
    """A fresh virtualenv (no system site-packages) with the wheel, its flake8 and lsp extras and the
    dependencies they declare, installed from the wheelhouse only."""
    path = tmp_path_factory.mktemp("venv") / "env"
    # --without-pip: seeding pip takes longer than everything else here; this interpreter's pip
    # installs into the venv instead (pip >= 22.3: --python).
    done = _run(sys.executable, "-m", "venv", "--without-pip", str(path))
    assert done.returncode == 0, _describe(done)
    python = path / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    done = _run(sys.executable, "-m", "pip", "--python", str(python), "install", "--no-index",
                "--find-links", str(wheelhouse), f"{dists['wheel']}[flake8,lsp]", env=pip_environment())
    assert done.returncode == 0, _describe(done)
    return path


def _venv_env(venv: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "NO_COLOR")}
    env["PATH"] = str(venv / ("Scripts" if os.name == "nt" else "bin")) + os.pathsep + env.get("PATH", "")
    env["VIRTUAL_ENV"] = str(venv)
    return env


def test_the_installed_wheel_works(venv, dists, tmp_path):
    bindir = venv / ("Scripts" if os.name == "nt" else "bin")
    python, exe = str(bindir / "python"), str(bindir / "winspawn-lint")
    env = _venv_env(venv)
    (tmp_path / "job.py").write_text(LAMBDA_POOL, encoding="utf-8")

    done = _run(python, "-c", "import winspawn_lint, sys; print(winspawn_lint.__file__)", cwd=tmp_path, env=env)
    assert done.returncode == 0 and Path(done.stdout.strip()).is_relative_to(venv), _describe(done)

    done = _run(exe, "--version", cwd=tmp_path, env=env)
    assert done.returncode == 0 and done.stdout.strip() == f"winspawn-lint {__version__}", _describe(done)

    done = _run(exe, "job.py", cwd=tmp_path, env=env)
    assert done.returncode == 1, _describe(done)
    assert done.stdout.startswith("job.py:6:") and "WSP201" in done.stdout, _describe(done)

    done = _run(python, "-m", "winspawn_lint", "--format", "json", "job.py", cwd=tmp_path, env=env)
    assert done.returncode == 1 and '"WSP201"' in done.stdout, _describe(done)

    done = _run(exe, "--explain", "WSP201", cwd=tmp_path, env=env)
    assert done.returncode == 0, _describe(done)
    with zipfile.ZipFile(dists["wheel"]) as wheel:
        page = wheel.read("winspawn_lint/rule_docs/WSP201.md").decode("utf-8")
    assert done.stdout.strip() == page.strip()  # the rule's page, read from the installed package data


def _imported_modules(package: Path) -> set[str]:
    """Top-level names of every module the package's code imports, wherever the import statement is
    (astroid and libcst are imported lazily, inside functions)."""
    names: set[str] = set()
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_bytes(), str(path))):
            if isinstance(node, ast.Import):
                names.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names.add(node.module.split(".")[0])
    return names


def _is_stdlib(name: str) -> bool:
    if hasattr(sys, "stdlib_module_names"):  # 3.10+
        return name in sys.stdlib_module_names or name == "__future__"
    spec = importlib.util.find_spec(name)
    return spec is not None and (spec.origin in ("built-in", "frozen") or "site-packages" not in (spec.origin or ""))


# Imported only where their host is already running: the pytest plugin (pytest11 entry point) and the
# emulation's patch of `multiprocess` (applied when a program imports it); tomli only before 3.11.
OPTIONAL_IMPORTS = {"pytest", "_pytest", "multiprocess"} | ({"tomli"} if sys.version_info >= (3, 11) else set())


def test_every_module_the_package_imports_is_installed_with_it(venv):
    """A dependency the code uses but pyproject.toml does not declare is missing from the venv: fail."""
    needed = {name for name in _imported_modules(ROOT / "src" / "winspawn_lint")
              if name != "winspawn_lint" and not _is_stdlib(name)} - OPTIONAL_IMPORTS
    assert {"astroid", "libcst"} <= needed
    python = str(venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python"))
    probe = "import importlib.util, sys; print(' '.join(m for m in sys.argv[1:] if not importlib.util.find_spec(m)))"
    done = _run(python, "-c", probe, *sorted(needed), env=_venv_env(venv))
    assert done.returncode == 0, _describe(done)
    assert done.stdout.split() == [], f"imported by winspawn_lint but not installed with it: {done.stdout}"
    done = _run(sys.executable, "-m", "pip", "--python", python, "check", env=pip_environment())
    assert done.returncode == 0, _describe(done)


def test_the_installed_wheel_fixes_with_libcst_and_infers_with_astroid(venv, tmp_path):
    bindir = venv / ("Scripts" if os.name == "nt" else "bin")
    env = _venv_env(venv)
    (tmp_path / "job.py").write_text(LAMBDA_POOL, encoding="utf-8")
    done = _run(str(bindir / "winspawn-lint"), "--diff", "job.py", cwd=tmp_path, env=env)
    assert done.returncode == 1 and "+def _map_fn(x):" in done.stdout, _describe(done)
    code = "import astroid, libcst, winspawn_lint.analysis.inference, winspawn_lint.fix; print('ok')"
    done = _run(str(bindir / "python"), "-c", code, cwd=tmp_path, env=env)
    assert done.stdout.strip() == "ok", _describe(done)


def test_flake8_finds_the_installed_plugin(venv, tmp_path):
    bindir = venv / ("Scripts" if os.name == "nt" else "bin")
    env = _venv_env(venv)
    (tmp_path / "job.py").write_text(LAMBDA_POOL, encoding="utf-8")
    done = _run(str(bindir / "python"), "-m", "flake8", "--select", "WSP", "job.py", cwd=tmp_path, env=env)
    assert done.returncode == 1, _describe(done)
    lines = done.stdout.strip().splitlines()
    assert lines[0].startswith("job.py:6:24: WSP201 lambda passed as"), _describe(done)
    # --select=WSP names the whole prefix, so the opt-in WSP105 (freeze_support) comes along.
    assert [line.split()[1] for line in lines] == ["WSP201", "WSP105"], _describe(done)
    done = _run(str(bindir / "python"), "-m", "flake8", "--version", env=env)
    assert f"winspawn-lint: {__version__}" in " ".join(done.stdout.split()), _describe(done)  # argparse wraps it


def _frame(message: dict) -> bytes:
    body = json.dumps(message).encode("utf-8")
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


def test_the_installed_language_server_answers_over_stdio(venv, tmp_path):
    """``winspawn-lint server`` from the installed wheel with its lsp extra: initialize, a document's
    diagnostics, shutdown, exit (status 0); hand-written JSON-RPC frames, no client library."""
    bindir = venv / ("Scripts" if os.name == "nt" else "bin")
    document = (tmp_path / "job.py").as_uri()
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}}},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
            "uri": document, "languageId": "python", "version": 1, "text": LAMBDA_POOL}}},
    ]
    server = subprocess.Popen([str(bindir / "winspawn-lint"), "server"], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=tmp_path, env=_venv_env(venv))
    try:
        server.stdin.write(b"".join(_frame(m) for m in messages))
        server.stdin.flush()
        seen = []
        while not any(m.get("method") == "textDocument/publishDiagnostics" for m in seen):  # bounded by the timeout
            headers = {}
            for _ in range(10):  # the header lines, up to the blank one
                line = server.stdout.readline().strip()
                if not line:
                    break
                name, _, value = line.partition(b":")
                headers[name.strip().lower()] = value.strip()
            seen.append(json.loads(server.stdout.read(int(headers[b"content-length"]))))
        server.stdin.write(_frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}) +
                           _frame({"jsonrpc": "2.0", "method": "exit"}))
        server.stdin.close()
        assert server.wait(timeout=60) == 0
    finally:
        server.kill()
    (initialized,) = [m for m in seen if m.get("id") == 1]
    assert initialized["result"]["serverInfo"] == {"name": "winspawn-lint", "version": __version__}
    (published,) = [m for m in seen if m.get("method") == "textDocument/publishDiagnostics"]
    assert [d["code"] for d in published["params"]["diagnostics"]] == ["WSP201"]
