"""SARIF 2.1.0 for GitHub code scanning: rule metadata from the catalogue, one result per finding."""

from __future__ import annotations

import hashlib
import os
from typing import Any, Optional, Sequence

from .__version__ import __version__
from .finding import Finding
from .rules import RULES

SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
DOCS_URL = "https://github.com/winspawn-lint/winspawn-lint/blob/main/docs/rules/{code}.md"


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
        "fullDescription": {"text": rule.summary},
        "helpUri": DOCS_URL.format(code=code),
        "help": {"text": rule.summary, "markdown": body + f"\n\n[Rule documentation]({DOCS_URL.format(code=code)})"},
        "defaultConfiguration": {"level": "error" if rule.default else "warning", "enabled": rule.default},
        "properties": {"fixSafety": rule.fix_safety.value, "tags": [rule.family]},
    }


def _uri(path: str, root: Optional[str]) -> str:
    if root:
        try:
            path = os.path.relpath(os.path.abspath(path), root)
        except ValueError:
            pass
    return path.replace(os.sep, "/")


def document(rows: Sequence[tuple[str, Finding]], root: Optional[str] = None) -> dict[str, Any]:
    codes = sorted({f.code for _, f in rows} | set(RULES))
    index = {code: i for i, code in enumerate(codes)}
    results = []
    for path, f in rows:
        uri = _uri(path, root)
        fingerprint = hashlib.sha256(f"{uri}:{f.code}:{f.message}".encode()).hexdigest()[:32]
        results.append({
            "ruleId": f.code,
            "ruleIndex": index[f.code],
            "level": "error" if f.rule.default else "warning",
            "message": {"text": f.message},
            "locations": [{
                "physicalLocation": {
                    "artifactLocation": {"uri": uri, "uriBaseId": "%SRCROOT%"},
                    "region": {"startLine": f.line, "startColumn": f.col + 1,
                               "endLine": f.end_line, "endColumn": f.end_col + 1},
                }
            }],
            "partialFingerprints": {"primaryLocationLineHash": fingerprint},
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
