"""The catalogue is complete: every rule of ``rules.py`` has what docs/architecture.md says adding a rule takes.

For each rule: a fixture that expects it and on which the linter emits it, a safe twin
(``wspNNN_ok_*``) that does not expect it, a documentation page, and -- exactly when the catalogue
grades it fixable -- a fixer that claims it (a codemod's ``FIXES``, or ``notebook.FIXES`` for the
notebook-level move) and a ``.fixed`` file after a fixture that expects it.  No fixer may claim a rule the
catalogue grades unfixable.  Rule codes live in the
catalogue: no other source file spells one as a string.

Notebook fixtures (``tests/fixtures/**/*.ipynb``) count like script fixtures; their expectations are
the same ``# error:`` comments, in the code cells.
"""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path

import pytest

from fixture_spec import FIXTURES_DIR, all_fixtures, load_fixture
from winspawn_lint import check_text, rules
from winspawn_lint.fix import notebook as notebook_fix
from winspawn_lint.fix import CODEMODS
from winspawn_lint.rules import RULES, FixSafety
from winspawn_lint.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "src" / "winspawn_lint"
CODES = list(RULES)
_EXPECTED = re.compile(r"#\s*error:\s*(WSP\d{3}(?:\s*,\s*WSP\d{3})*)")


def _is_fixed(path: Path) -> bool:
    return ".fixed." in path.name


def _fixtures() -> list[Path]:
    """Every script fixture (``tests/fixtures/*.py``) and notebook fixture (``tests/fixtures/**/*.ipynb``),
    helper modules and ``.fixed`` outputs left out."""
    found = [*all_fixtures(), *FIXTURES_DIR.rglob("*.ipynb")]
    return sorted(p for p in found if not _is_fixed(p) and not p.name.startswith("_"))


def _expected_codes(path: Path) -> set[str]:
    if path.suffix == ".py":
        return {code for _, code in load_fixture(path).expected}
    cells = json.loads(path.read_text(encoding="utf-8")).get("cells", [])
    text = "\n".join("".join(cell.get("source", "")) for cell in cells if cell.get("cell_type") == "code")
    return {code.strip() for match in _EXPECTED.finditer(text) for code in match[1].split(",")}


def _fixed_partner(path: Path) -> Path | None:
    partner = path.with_name(f"{path.stem}.fixed{path.suffix}")
    return partner if partner.is_file() else None


FIXTURES = _fixtures()
EXPECTED = {path: _expected_codes(path) for path in FIXTURES}


@pytest.fixture(scope="module")
def emitted() -> dict[str, set[Path]]:
    """code -> the script fixtures on which the linter reports it (every rule enabled)."""
    everything = Settings(select=frozenset(RULES))
    found: dict[str, set[Path]] = defaultdict(set)
    for path in FIXTURES:
        if path.suffix == ".py":
            for finding in check_text(path.read_text(encoding="utf-8"), str(path), everything):
                found[finding.code].add(path)
    return found


#: Everything that fixes: the libcst codemods, and the notebook-level move of definitions (WSP206).
FIXERS = {**{codemod.__name__: codemod.FIXES for codemod in CODEMODS}, "notebook.FIXES": notebook_fix.FIXES}


def _claimed_by() -> dict[str, list[str]]:
    claims: dict[str, list[str]] = defaultdict(list)
    for fixer, fixes in FIXERS.items():
        for rule in fixes:
            claims[rule.code].append(fixer)
    return claims


@pytest.mark.parametrize("code", CODES)
def test_a_fixture_expects_the_rule_and_the_linter_emits_it(code, emitted):
    expecting = [path for path in FIXTURES if code in EXPECTED[path]]
    assert expecting, f"{code}: no fixture in {FIXTURES_DIR} has a `# error: {code}` line"
    scripts = [path for path in expecting if path.suffix == ".py"]
    if scripts:  # (notebook fixtures are checked line by line by their own test)
        assert set(scripts) & emitted[code], f"{code}: expected by {[p.name for p in scripts]}, emitted by none"


@pytest.mark.parametrize("code", CODES)
def test_the_rule_has_a_safe_twin(code):
    twins = [path for path in FIXTURES if path.name.startswith(f"{code.lower()}_ok_") and code not in EXPECTED[path]]
    assert twins, f"{code}: no safe twin ({code.lower()}_ok_<what>.py: a look-alike that must not be reported)"


@pytest.mark.parametrize("code", CODES)
def test_the_rule_has_a_documentation_page(code):
    assert (PACKAGE / "rule_docs" / f"{code}.md").is_file(), f"{code}: no page rule_docs/{code}.md"
    assert RULES[code].docs().startswith(f"# {code}: {RULES[code].name}")


@pytest.mark.parametrize("code", CODES)
def test_a_fixable_rule_has_a_fixer_and_a_fixed_fixture_and_an_unfixable_one_has_neither(code):
    rule, claims = RULES[code], _claimed_by()[code]
    if rule.fix_safety is FixSafety.NONE:
        assert not claims, f"{code} is graded unfixable in rules.py, but {claims} claim it in FIXES"
        return
    assert claims, f"{code} is graded {rule.fix_safety.value}-fixable in rules.py, but no fixer lists it in FIXES"
    fixed = [_fixed_partner(path) for path in FIXTURES if code in EXPECTED[path] and _fixed_partner(path)]
    assert fixed, f"{code}: no fixture that expects it has a NAME.fixed.py (the exact output of --fix)"


def test_fixers_claim_catalogue_rules_once_each():
    for fixer, fixes in FIXERS.items():
        assert fixes, f"{fixer} fixes nothing"
        assert all(RULES.get(rule.code) is rule for rule in fixes), f"{fixer}: not catalogue rules"
        assert len(set(fixes)) == len(fixes), f"{fixer} lists a rule twice"


def test_every_rule_is_a_module_attribute_named_by_its_code():
    for code, rule in RULES.items():
        assert getattr(rules, code) is rule


_CODE_LITERAL = re.compile(r"""["']WSP\d""")


def test_no_source_file_outside_the_catalogue_spells_a_rule_code():
    """Checks and codemods name rules as ``rules.WSP201``: a typo fails at import, not silently."""
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path == PACKAGE / "rules.py":
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if _CODE_LITERAL.search(line):
                offenders.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not offenders, "rule codes as strings outside rules.py:\n" + "\n".join(offenders)
