"""SARIF 2.1.0 for GitHub code scanning: rule metadata from the catalogue, one result per finding."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path
from typing import Any, Optional, Sequence
from urllib.parse import quote

from ..__version__ import __version__
from ..finding import Finding
from ..rules import RULES
from ..io.source import split_lines

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
DOCS_URL = "https://github.com/winspawn-lint/winspawn-lint/blob/main/src/winspawn_lint/rule_docs/{code}.md"


def _rule(code: str) -> dict[str, Any]:
    rule = RULES[code]
    try:
        body = rule.docs()
    except (OSError, FileNotFoundError):
        body = rule.summary
    return {
        "id": code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": _first_paragraph(body, "## What it does") or rule.summary},
        "helpUri": DOCS_URL.format(code=code),
        "help": {"text": rule.summary, "markdown": body + f"\n\n[Rule documentation]({DOCS_URL.format(code=code)})"},
        "defaultConfiguration": {"level": "error" if rule.default else "warning", "enabled": rule.default},
        "properties": {"fixSafety": rule.fix_safety.value, "tags": [rule.family]},
    }


def _first_paragraph(markdown: str, heading: str) -> str:
    """The first paragraph under *heading*, joined into one line (GitHub shows it as the rule's description)."""
    _, found, rest = markdown.partition(heading + "\n")
    if not found:
        return ""
    paragraph = rest.strip().split("\n\n", 1)[0]
    return "" if paragraph.startswith("#") else " ".join(paragraph.split())


def repository_root(start: Optional[str] = None) -> str:
    """The enclosing git work tree (GitHub resolves result paths against it), else *start*."""
    start = os.path.abspath(start or os.getcwd())
    here = start
    while True:
        if os.path.exists(os.path.join(here, ".git")):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            return start
        here = parent


def _location(path: str, root: Optional[str]) -> dict[str, str]:
    """A repository-relative, percent-encoded ``artifactLocation`` (absolute ``file:`` URI outside it)."""
    if path == "-" or not root:
        return {"uri": quote(path.replace(os.sep, "/"))}
    absolute = os.path.abspath(path)
    try:
        relative = os.path.relpath(absolute, root)
    except ValueError:  # another drive
        relative = os.pardir
    if relative == os.pardir or relative.startswith(os.pardir + os.sep):
        return {"uri": Path(absolute).as_uri()}
    return {"uri": quote(relative.replace(os.sep, "/")), "uriBaseId": "%SRCROOT%"}


def _fingerprints(rows: Sequence[tuple[str, Finding]], uris: Sequence[str]) -> list[str]:
    """Stable across edits elsewhere in the file and across working directories: the rule, the
    artifact URI and the flagged line's text (whitespace-normalised), numbered when the same rule
    flags identical lines in one file."""
    texts: dict[str, list[str]] = {}
    seen: dict[str, int] = {}
    prints = []
    cells: dict[str, dict[int, list[str]]] = {}
    for (path, f), uri in zip(rows, uris):
        if f.cell is not None:
            if path not in cells:
                cells[path] = _notebook_cells(path)
            lines = cells[path].get(f.cell, [])
            uri = f"{uri}\0cell {f.cell}"
        else:
            if path not in texts:
                try:
                    with open(path, encoding="utf-8", errors="replace") as handle:
                        texts[path] = split_lines(handle.read())
                except OSError:
                    texts[path] = []
            lines = texts[path]
        line = " ".join(lines[f.line - 1].split()) if 1 <= f.line <= len(lines) else f.message
        digest = hashlib.sha256(f"{uri}\0{f.code}\0{line}".encode()).hexdigest()[:32]
        seen[digest] = seen.get(digest, 0) + 1
        prints.append(f"{digest}:{seen[digest]}")
    return prints


def _notebook_cells(path: str) -> dict[int, list[str]]:
    from ..io import notebook, source

    try:
        return notebook.loads(source.read(path).text).cell_lines()
    except source.SourceError:
        return {}


def _region(f: Finding) -> dict[str, Any]:
    region: dict[str, Any] = {"startLine": f.line, "startColumn": f.col + 1,
                              "endLine": f.end_line, "endColumn": f.end_col + 1}
    if f.cell is not None:
        # SARIF has no notion of a notebook cell: lines count within the cell named here (as in ruff's output).
        region["properties"] = {"cell": f.cell}
    return region


def document(rows: Sequence[tuple[str, Finding]], root: Optional[str] = None) -> dict[str, Any]:
    codes = sorted({f.code for _, f in rows} | set(RULES))
    index = {code: i for i, code in enumerate(codes)}
    results = []
    root = repository_root(root) if root else None
    locations = [_location(path, root) for path, _ in rows]
    fingerprints = _fingerprints(rows, [location["uri"] for location in locations])
    for (path, f), location, fingerprint in zip(rows, locations, fingerprints):
        results.append({
            "ruleId": f.code,
            "ruleIndex": index[f.code],
            "level": "error" if f.rule.default else "warning",
            "message": {"text": (f"cell {f.cell}:{f.line}:{f.col + 1}: " if f.cell is not None else "") + f.message},
            "locations": [{
                "physicalLocation": {
                    "artifactLocation": location,
                    "region": _region(f),
                }
            }],
            "partialFingerprints": {"primaryLocationLineHash": fingerprint},
            # where it breaks: ids of winspawn_lint.spawn_apis.PLATFORMS (absent: not platform-specific)
            **({"properties": {"platforms": list(f.platforms)}} if f.platforms is not None else {}),
        })
    return {
        "$schema": SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "winspawn-lint", "version": __version__, "semanticVersion": __version__,
                "informationUri": "https://github.com/winspawn-lint/winspawn-lint",
                "rules": [_rule(code) for code in codes],
            }},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    }
