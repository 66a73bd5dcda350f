"""The documentation agrees with the rule catalogue and the linter.

Every rule has a page (``src/winspawn_lint/rule_docs/WSPnnn.md``, shipped as
package data) with the same sections in the same order; each page's Example
triggers exactly its rule and its "Use instead" triggers nothing (with every
rule enabled, opt-in ones included); ``--explain`` prints the page; the index
in ``docs/rules/README.md`` lists every rule and links to its page; the bundled
examples behave as the README says.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from winspawn_lint import RULES, Settings, check_text

ROOT = Path(__file__).resolve().parent.parent
RULE_DOCS = ROOT / "src" / "winspawn_lint" / "rule_docs"
DOCS = ROOT / "docs"
SECTIONS = ["What it does", "Why is this bad?", "Where it breaks", "Example", "Use instead", "Fix safety", "Options", "References"]
ALL_RULES = Settings(select=frozenset(RULES))
PYTHON_BLOCK = re.compile(r"^```python\n(.*?)^```$", re.S | re.M)
FIX_GRADE = {"safe": "**safe**", "unsafe": "**unsafe**", "none": "**no fix**"}


def page(code: str) -> str:
    return (RULE_DOCS / f"{code}.md").read_text(encoding="utf-8")


def sections(text: str) -> dict[str, str]:
    """``## Heading`` -> body, in order (code fences never start with ``## ``)."""
    parts = re.split(r"^## (.+)$", text, flags=re.M)
    return {parts[i].strip(): parts[i + 1] for i in range(1, len(parts), 2)}


def python_blocks(body: str) -> list[str]:
    return PYTHON_BLOCK.findall(body)


#: rules about notebooks: their examples are checked as a notebook's cells
NOTEBOOK_RULES = frozenset({"WSP206"})


def codes(code_text: str, code: str = "") -> set[str]:
    filename = "example.ipynb" if code in NOTEBOOK_RULES else None
    return {f.code for f in check_text(code_text, filename=filename, settings=ALL_RULES)}


def test_every_rule_has_a_page() -> None:
    missing = [code for code in RULES if not (RULE_DOCS / f"{code}.md").is_file()]
    assert not missing, f"rules without a page in {RULE_DOCS}: {missing}"


def test_every_page_names_an_existing_rule() -> None:
    for path in sorted(RULE_DOCS.glob("*.md")):
        assert path.stem in RULES, f"{path.name} documents no rule of the catalogue"
        first = path.read_text(encoding="utf-8").splitlines()[0]
        rule = RULES[path.stem]
        assert first == f"# {rule.code}: {rule.name}", f"{path.name}: title line is {first!r}"


@pytest.mark.parametrize("code", sorted(RULES))
def test_page_has_all_sections_in_order(code: str) -> None:
    found = list(sections(page(code)))
    assert found == SECTIONS, f"{code}.md sections: {found}"
    for name, body in sections(page(code)).items():
        assert body.strip(), f"{code}.md: section {name!r} is empty"


@pytest.mark.parametrize("code", sorted(RULES))
def test_page_states_the_catalogue_fix_safety(code: str) -> None:
    body = sections(page(code))["Fix safety"]
    grade = FIX_GRADE[RULES[code].fix_safety.value]
    assert grade in body, f"{code}.md: Fix safety does not say {grade} (catalogue: {RULES[code].fix_safety.value})"


@pytest.mark.parametrize("code", sorted(RULES))
def test_example_triggers_exactly_its_rule(code: str) -> None:
    blocks = python_blocks(sections(page(code))["Example"])
    assert len(blocks) == 1, f"{code}.md: Example must hold exactly one python block"
    compile(blocks[0], f"{code}.md Example", "exec")
    assert codes(blocks[0], code) == {code}


@pytest.mark.parametrize("code", sorted(RULES))
def test_use_instead_triggers_nothing(code: str) -> None:
    blocks = python_blocks(sections(page(code))["Use instead"])
    assert len(blocks) == 1, f"{code}.md: Use instead must hold exactly one python block"
    compile(blocks[0], f"{code}.md Use instead", "exec")
    assert codes(blocks[0], code) == set()


def test_off_by_default_rules_say_how_to_enable_them() -> None:
    for code, rule in RULES.items():
        if not rule.default:
            assert "extend-select" in sections(page(code))["Options"], f"{code}.md: Options must name extend-select"


def test_rule_docs_method_reads_the_page() -> None:
    for code, rule in RULES.items():
        assert rule.docs() == page(code)


def test_explain_prints_the_page() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "winspawn_lint", "--explain", "WSP201"],
        capture_output=True, text=True, encoding="utf-8", timeout=60, cwd=ROOT,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == page("WSP201").strip()


def test_rules_index_lists_every_rule_and_links_its_page() -> None:
    index = (DOCS / "rules" / "README.md").read_text(encoding="utf-8")
    for code, rule in RULES.items():
        row = next((line for line in index.splitlines() if line.startswith(f"| [{code}]")), None)
        assert row is not None, f"docs/rules/README.md has no row for {code}"
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        assert cells[0] == f"[{code}](../../src/winspawn_lint/rule_docs/{code}.md)", cells[0]
        assert cells[1] == f"`{rule.name}`", cells[1]
        assert cells[2] == ("on" if rule.default else "off"), cells[2]
        assert cells[3] == rule.fix_safety.value, cells[3]
    # one source of truth: no copies of the pages under docs/
    assert not list((DOCS / "rules").glob("WSP*.md"))


def test_relative_links_in_docs_resolve() -> None:
    for path in [*DOCS.rglob("*.md"), *RULE_DOCS.glob("*.md")]:
        for target in re.findall(r"\]\(([^)\s]+)\)", path.read_text(encoding="utf-8")):
            if re.match(r"[a-z]+:", target) or target.startswith("#"):
                continue
            resolved = (path.parent / target.split("#")[0]).resolve()
            assert resolved.exists(), f"{path.relative_to(ROOT)}: broken link {target}"


def test_readme_links_are_absolute() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for target in re.findall(r"\]\(([^)\s]+)\)", readme):
        assert re.match(r"https?://", target) or target.startswith("#"), \
            f"README.md: relative link {target} breaks on PyPI"


def test_readme_quick_start_commands() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "pip install . && winspawn-lint docs/examples/train_unsafe.py" in readme
    assert "pip install -e '.[test]' && pytest -n 2" in readme


def test_unsafe_example_has_findings_and_safe_example_none() -> None:
    unsafe = (DOCS / "examples" / "train_unsafe.py").read_text(encoding="utf-8")
    safe = (DOCS / "examples" / "train_safe.py").read_text(encoding="utf-8")
    found = codes(unsafe)
    assert {"WSP101", "WSP102", "WSP103", "WSP201", "WSP301"} <= found, found
    assert codes(safe) == set()


def test_unsafe_example_through_the_cli() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "winspawn_lint", "--isolated", "docs/examples/train_unsafe.py"],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
    )
    assert result.returncode == 1, result.stderr
    assert "docs/examples/train_unsafe.py:" in result.stdout
    result = subprocess.run(
        [sys.executable, "-m", "winspawn_lint", "--isolated", "docs/examples/train_safe.py"],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_readme_quick_start_output_is_what_the_cli_prints() -> None:
    """The text block after the quick-start command is the CLI's output for it, summary lines included."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    shown = readme.split("winspawn-lint docs/examples/train_unsafe.py\n```\n\n```text\n", 1)[1].split("```", 1)[0]
    result = subprocess.run(
        [sys.executable, "-m", "winspawn_lint", "--isolated", "docs/examples/train_unsafe.py"],
        capture_output=True, text=True, encoding="utf-8", timeout=120, cwd=ROOT,
    )
    assert result.stdout == shown


def test_the_usage_flags_table_lists_every_option_of_the_command() -> None:
    from winspawn_lint.cli import build_parser

    options = {option for action in build_parser()._actions for option in action.option_strings}
    usage = (DOCS / "usage.md").read_text(encoding="utf-8")
    table = usage.split("### Flags", 1)[1].split("\n\n", 2)[1]
    documented = set(re.findall(r"`(--?[a-z][a-z-]*)", table))
    assert options - documented == set(), "flags missing from docs/usage.md"
    assert documented - options == set(), "docs/usage.md documents flags the command does not have"
