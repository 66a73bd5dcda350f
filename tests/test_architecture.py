"""The package's layout holds (docs/architecture.md): nothing imports upward.

From the bottom: the shared records (``__version__``, ``records``, ``spawn_apis``, ``rules``, ``finding``,
``settings``); the rooms, in their own order (``io`` and ``runtime``, then ``analysis`` and ``report``, then
``fix``); the drivers (``pipeline``, ``runner``); the front ends (``cli``, ``flake8_plugin``, ``spawnrun``,
``__main__``, the language server package ``server``, the libcst command adapter ``fix.commands``) and the
package facade (``winspawn_lint/__init__.py``).  A module may import what is below it and its own room; the
imports are read from the source, every one of them, at the top of a module or inside a function.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "src" / "winspawn_lint"

RECORDS = {"__version__", "records", "spawn_apis", "rules", "finding", "settings"}
ROOMS = {"io": 1, "runtime": 1, "analysis": 2, "report": 2, "fix": 3}
DRIVERS = {"pipeline": 4, "runner": 5}
FRONT_ENDS = {"cli", "flake8_plugin", "spawnrun", "__main__", "server", "fix.commands", "__init__"}


def _front_end(module: str) -> bool:
    """A front end, or a module of a front end that is a package (``server.text``)."""
    return module in FRONT_ENDS or module.split(".")[0] in FRONT_ENDS


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    if parts[-1] == "__init__" and len(parts) > 1:
        parts.pop()
    return ".".join(parts)


def _level(module: str) -> int:
    """Where *module* (a dotted name inside the package) stands: higher may import lower."""
    if _front_end(module):
        return 9
    top = module.split(".")[0]
    if top in RECORDS:
        return 0
    if top in ROOMS:
        return ROOMS[top]
    if top in DRIVERS:
        return DRIVERS[top]
    raise AssertionError(f"{module}: not placed in the layout (add it to tests/test_architecture.py and the page)")


def _imports(path: Path) -> list[tuple[int, str]]:
    """(line, dotted module inside the package) of every import of the package's own modules in *path*; a name
    imported from the package itself (``from .. import check_text``) counts as an import of the facade."""
    module = _module_name(path)
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1] if node.level > 1 else package
                target = ".".join([*base, *(node.module.split(".") if node.module else [])])
            elif node.module and node.module.split(".")[0] == "winspawn_lint":
                target = node.module.partition(".")[2]
            else:
                continue
            for alias in node.names:
                submodule = f"{target}.{alias.name}" if target else alias.name
                if (PACKAGE / Path(*submodule.split("."))).with_suffix(".py").is_file() or \
                        (PACKAGE / Path(*submodule.split("."))).is_dir():
                    found.append((node.lineno, submodule))
                else:
                    found.append((node.lineno, target or "__init__"))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.split(".")[0] == "winspawn_lint":
                    found.append((node.lineno, alias.name.partition(".")[2] or "__init__"))
    return found


def test_nothing_imports_upward():
    upward = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if "_emulation" in path.parts:  # the sitecustomize carried into child interpreters, not a module of ours
            continue
        module = _module_name(path) or "__init__"
        own = _level(module)
        for line, target in _imports(path):
            if target.split(".")[0] == module.split(".")[0] and (target not in FRONT_ENDS or _front_end(module)):
                continue  # within a room or a front end's package (or a module importing its own package)
            if _level(target) > own or (_front_end(target) and not _front_end(module)):
                upward.append(f"{path.relative_to(PACKAGE)}:{line}: {module} imports {target}")
    assert upward == []


def test_the_language_server_reads_no_other_front_end():
    # Front ends only format and filter what the driver computes: the server shares the command line's
    # configuration through settings.py, not by importing cli (only cli dispatches `winspawn-lint server` to it).
    reached = [f"{path.relative_to(PACKAGE)}:{line}: imports {target}"
               for path in sorted((PACKAGE / "server").rglob("*.py"))
               for line, target in _imports(path) if _front_end(target) and target.split(".")[0] != "server"]
    assert reached == []


def test_the_architecture_page_names_every_module():
    page = (PACKAGE.parent.parent / "docs" / "architecture.md").read_text(encoding="utf-8")
    missing = [str(path.relative_to(PACKAGE)) for path in sorted(PACKAGE.rglob("*.py"))
               if path.name != "__init__.py" and "_emulation" not in path.parts
               and not re.search(rf"(?<![\w/.]){re.escape(path.name)}\b", page)]
    assert missing == []
