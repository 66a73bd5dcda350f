"""Output formats: text, json, github, grouped and SARIF (validated against the official 2.1.0 schema)."""

from __future__ import annotations

import io
import json
import re
import unicodedata
from pathlib import Path

import pytest

from winspawn_lint import cli
from winspawn_lint.report import formats
from winspawn_lint.finding import Finding
from winspawn_lint.rules import RULES

DATA = Path(__file__).resolve().parent / "data"

# Four WSP201 findings: the lambda sits after ASCII, accented, wide (CJK) and tab-indented text.
SOURCE = '''\
import multiprocessing


def main():
    with multiprocessing.Pool(2) as pool:
        print(pool.map(lambda x: x, [1]))
        nom = "données"; print(pool.map(lambda x: x, [1]))
        名 = "数据"; print(pool.map(lambda x: x, [1]))


def tabbed():
\twith multiprocessing.Pool(2) as pool:
\t\tprint(pool.map(lambda x: x, [1]))


if __name__ == "__main__":
    main()
'''
LAMBDA_LINES = (6, 7, 8, 13)


@pytest.fixture
def project(tmp_path: Path, monkeypatch) -> Path:
    """A git work tree (SARIF paths are relative to it) holding ``pkg/mod.py``; cwd is its root."""
    (tmp_path / ".git").mkdir()
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "mod.py").write_text(SOURCE, encoding="utf-8")
    (tmp_path / "pkg" / "clean.py").write_text("x = 1\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("NO_COLOR", raising=False)
    return tmp_path


def run(capsys, *args: str) -> tuple[int, str, str]:
    status = cli.main(["--isolated", *args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_text(project, capsys):
    status, out, err = run(capsys, "pkg")
    assert status == 1 and err == ""
    lines = out.splitlines()
    assert [int(line.split(":")[1]) for line in lines[:-2]] == list(LAMBDA_LINES)
    # As ruff prints them: `[*]` marks a fixable finding, and the run ends with a summary.
    assert lines[0].startswith(
        "pkg/mod.py:6:24: WSP201 [*] lambda passed as the function of `pool.map()` to `multiprocessing.Pool`")
    # Pool.map pickles its tasks under every start method: the suffix says where it breaks
    assert lines[0].endswith("use a module-level function [Windows, macOS, Linux]")
    assert lines[-2:] == [f"Found {len(LAMBDA_LINES)} errors.", f"[*] {len(LAMBDA_LINES)} fixable with `--fix`."]


def test_an_explicit_context_breaks_on_every_platform(project, capsys):
    # get_context("spawn") and DataLoader(multiprocessing_context="spawn") spawn on Linux <= 3.13 too
    (project / "pkg" / "explicit.py").write_text(
        "import multiprocessing\n\nimport torch\nfrom torch.utils.data import DataLoader\n\n"
        'ctx = multiprocessing.get_context("spawn")\n\n\ndef main():\n'
        "    ctx.Process(target=lambda: 0).start()\n"
        '    multiprocessing.get_context("forkserver").Process(target=lambda: 0).start()\n'
        '    loader = DataLoader(torch.arange(4), num_workers=2, collate_fn=lambda b: b, multiprocessing_context="spawn")\n'
        "    print(list(loader))\n", encoding="utf-8")
    status, out, _ = run(capsys, "pkg/explicit.py")
    assert status == 1
    assert [line.rsplit(" [", 1)[1] for line in _finding_lines(out).splitlines()] == ["Windows, macOS, Linux]"] * 3


def test_text_suffix_names_the_platforms_and_target_platforms_filters(project, capsys):
    def check(path: str, config: str) -> tuple[int, str]:
        (project / "pyproject.toml").write_text("[tool.winspawn-lint]\n" + config, encoding="utf-8")
        status = cli.main([path])
        return status, _finding_lines(capsys.readouterr().out)

    (project / "pkg" / "guarded.py").write_text(
        "import multiprocessing\n\n"
        'if __name__ == "__main__":\n'
        "    def double(x):\n        return x * 2\n\n"
        "    multiprocessing.Process(target=double, args=(1,)).start()\n"
        "    multiprocessing.Process(target=lambda: None).start()\n",
        encoding="utf-8")
    status, out = check("pkg/guarded.py", "")
    # a Process target is pickled only by spawn (Windows, macOS) and forkserver (Linux from 3.14)
    assert status == 1
    assert [line.rsplit(" [", 1)[1] for line in out.splitlines()] == ["Windows, macOS, Linux ≥3.14]"] * 2
    status, out = check("pkg/guarded.py", 'target-platforms = ["linux"]\ntarget-version = "py311"\n')
    assert status == 1 and out.count(" WSP") == 2  # Linux with Python 3.14 breaks too

    (project / "pkg" / "dill.py").write_text(
        "from datasets import Dataset\n\nDataset.from_dict({}).map(abs, num_proc=2)\n", encoding="utf-8")
    status, out = check("pkg/dill.py", 'target-platforms = ["windows"]\n')
    assert " WSP101" in out and out.rstrip().endswith("[Windows]")  # datasets forks on Linux and macOS
    assert check("pkg/dill.py", 'target-platforms = ["linux", "macos"]\n') == (0, "")


def _finding_lines(out: str) -> str:
    """The finding lines of text output, without ruff's summary at the end."""
    return "".join(f"{line}\n" for line in out.splitlines() if ": WSP" in line)

def test_json_fields(project, capsys):
    status, out, _ = run(capsys, "--format", "json", "pkg")
    assert status == 1
    data = json.loads(out)
    assert [item["line"] for item in data] == list(LAMBDA_LINES)
    first = data[0]
    assert set(first) == {"path", "line", "col", "end_line", "end_col", "code", "name", "message", "fix_safety",
                          "platforms"}
    assert first["platforms"] == ["windows", "macos", "linux>=3.14", "linux<=3.13"]
    assert first["path"] == "pkg/mod.py"
    assert (first["line"], first["col"], first["end_line"], first["end_col"]) == (6, 24, 6, 35)  # 1-based
    assert (first["code"], first["name"], first["fix_safety"]) == ("WSP201", "lambda-to-worker", "safe")
    assert first["message"].startswith("lambda passed as the function of `pool.map()`")
    # columns count characters, not UTF-8 bytes: the accented line's lambda is where a reader sees it
    accented = SOURCE.splitlines()[6]
    assert data[1]["col"] == accented.index("lambda") + 1
    assert data[2]["col"] == SOURCE.splitlines()[7].index("lambda") + 1


def test_json_empty_is_an_empty_list(project, capsys):
    status, out, _ = run(capsys, "--format", "json", "pkg/clean.py")
    assert status == 0 and json.loads(out) == []


# --- GitHub Actions workflow commands ------------------------------------------------------------

ANNOTATION = re.compile(
    r"^::error file=(?P<file>[^,]*),line=(?P<line>\d+),col=(?P<col>\d+),endLine=(?P<endLine>\d+),"
    r"endColumn=(?P<endColumn>\d+),title=(?P<title>[^,:]*)::(?P<message>.*)$"
)


def _unescape(value: str) -> str:
    return value.replace("%0D", "\r").replace("%0A", "\n").replace("%3A", ":").replace("%2C", ",") \
        .replace("%25", "%")


def test_github_annotations(project, capsys):
    status, out, _ = run(capsys, "--format", "github", "pkg")
    assert status == 1
    lines = out.splitlines()
    assert len(lines) == len(LAMBDA_LINES)
    match = ANNOTATION.match(lines[0])
    assert match, lines[0]
    assert match["file"] == "pkg/mod.py"
    assert (match["line"], match["col"], match["endLine"], match["endColumn"]) == ("6", "24", "6", "35")
    assert match["title"].startswith("WSP201")
    assert match["message"].startswith("WSP201 lambda passed as the function of `pool.map()`")


def test_github_escaping():
    # What actions/toolkit does: data escapes % CR LF; properties also escape : and ,.
    finding = Finding("WSP202", 3, 4, 3, 9, {"what": "100% `f`\r\nsecond line", "role": "a, b", "api": "x:y"})
    out = io.StringIO()
    formats.github([("dir,with:odd%name/job.py", finding)], out)
    line = out.getvalue()
    assert line.endswith("\n") and line.count("\n") == 1  # one command, whatever the message holds
    match = ANNOTATION.match(line.rstrip("\n"))
    assert match, line
    assert match["file"] == "dir%2Cwith%3Aodd%25name/job.py"
    assert _unescape(match["file"]) == "dir,with:odd%name/job.py"
    assert "%25 `f`%0D%0Asecond line" in match["message"]
    assert "a, b" in match["message"] and "x:y" in match["message"]  # only properties escape , and :
    assert _unescape(match["message"]) == "WSP202 " + finding.message


# --- grouped ---------------------------------------------------------------------------------------

def _cells(text: str) -> int:
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1
               for c in text)


def test_grouped_caret_under_the_flagged_text(project, capsys):
    status, out, _ = run(capsys, "--format", "grouped", "pkg")
    assert status == 1
    assert "\x1b[" not in out  # not a terminal: no colour
    lines = out.splitlines()
    assert lines[0] == "pkg/mod.py:"
    carets = [i for i, line in enumerate(lines) if line.strip() and set(line.strip()) == {"^"}]
    assert len(carets) == len(LAMBDA_LINES)
    for i in carets:
        source, caret = lines[i - 1], lines[i]
        assert "\t" not in source  # tabs are expanded so the caret line can match them
        start = caret.index("^")
        assert _cells(source[: source.index("lambda")]) == start, f"\n{source}\n{caret}"
        assert len(caret.strip()) == len("lambda x: x")
        assert "[*]" in lines[i - 2] and "WSP201" in lines[i - 2]  # the fixable marker on the header line


class FakeTTY(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    "env, coloured",
    [({}, True), ({"NO_COLOR": "1"}, False), ({"NO_COLOR": ""}, True), ({"TERM": "dumb"}, False)],
)
def test_grouped_colour_only_on_a_terminal_without_no_color(monkeypatch, env, coloured):
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    finding = Finding("WSP201", 1, 4, 1, 15, {"role": "`func`", "api": "`Pool`"})
    rows = [("a.py", finding)]
    sources = {"a.py": ["xx(lambda x: x)"]}
    tty = FakeTTY()
    formats.grouped(rows, tty, sources=sources)
    assert ("\x1b[" in tty.getvalue()) is coloured
    plain = io.StringIO()
    formats.grouped(rows, plain, sources=sources)
    assert "\x1b[" not in plain.getvalue()


# --- SARIF -------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def sarif_validator():
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((DATA / "sarif-schema-2.1.0.json").read_text(encoding="utf-8"))
    assert schema["id"].endswith("/sarif-schema-2.1.0.json")
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema, format_checker=cls.FORMAT_CHECKER)


def _sarif(capsys, *args: str) -> dict:
    status, out, err = run(capsys, "--format", "sarif", *args)
    assert status in (0, 1), err
    return json.loads(out)


def _assert_valid(validator, document: dict) -> None:
    errors = sorted(validator.iter_errors(document), key=lambda e: list(e.path))
    assert not errors, "\n".join(f"{list(e.path)}: {e.message[:300]}" for e in errors)


def test_sarif_validates_against_the_official_schema(project, capsys, sarif_validator):
    document = _sarif(capsys, "pkg")
    _assert_valid(sarif_validator, document)
    assert document["version"] == "2.1.0"
    assert len(document["runs"][0]["results"]) == len(LAMBDA_LINES)
    assert document["runs"][0]["results"][0]["properties"]["platforms"] == [
        "windows", "macos", "linux>=3.14", "linux<=3.13"]


def test_sarif_without_results_is_valid(project, capsys, sarif_validator):
    document = _sarif(capsys, "pkg/clean.py")
    _assert_valid(sarif_validator, document)
    assert document["runs"][0]["results"] == []


def test_sarif_rules_carry_the_catalogue(project, capsys):
    driver = _sarif(capsys, "pkg")["runs"][0]["tool"]["driver"]
    assert driver["name"] == "winspawn-lint" and driver["version"]
    rules = {rule["id"]: rule for rule in driver["rules"]}
    assert set(rules) == set(RULES)
    for code, rule in rules.items():
        assert rule["name"] == RULES[code].name
        assert rule["shortDescription"]["text"] and rule["fullDescription"]["text"]
        assert rule["helpUri"].startswith("https://") and code in rule["helpUri"]
        assert rule["help"]["text"]
        assert rule["helpUri"] in rule["help"]["markdown"]  # the markdown links the rule's docs page
        assert rule["help"]["markdown"].startswith(RULES[code].docs().strip()[:40])  # and carries the page
        # the long description is the page's "What it does" paragraph, on one line
        assert rule["fullDescription"]["text"] != rule["shortDescription"]["text"]
        assert "\n" not in rule["fullDescription"]["text"]
        assert rule["defaultConfiguration"]["enabled"] is RULES[code].default


def test_sarif_results(project, capsys):
    run_ = _sarif(capsys, "pkg")["runs"][0]
    codes = [rule["id"] for rule in run_["tool"]["driver"]["rules"]]
    for result, line in zip(run_["results"], LAMBDA_LINES):
        assert result["ruleId"] == "WSP201" and codes[result["ruleIndex"]] == "WSP201"
        assert result["level"] == "error"
        assert result["message"]["text"].startswith("lambda passed as the function of `pool.map()`")
        location = result["locations"][0]["physicalLocation"]
        assert location["artifactLocation"] == {"uri": "pkg/mod.py", "uriBaseId": "%SRCROOT%"}
        region = location["region"]
        assert region["startLine"] == region["endLine"] == line
        assert region["endColumn"] - region["startColumn"] == len("lambda x: x")
        assert result["partialFingerprints"]["primaryLocationLineHash"]
    first = run_["results"][0]["locations"][0]["physicalLocation"]["region"]
    assert (first["startColumn"], first["endColumn"]) == (24, 35)
    assert run_["columnKind"] == "unicodeCodePoints"


def test_sarif_uris_are_relative_to_the_repository_not_the_working_directory(project, capsys, monkeypatch):
    from_root = _sarif(capsys, "pkg")["runs"][0]["results"]
    monkeypatch.chdir(project / "pkg")
    from_subdir = _sarif(capsys, "mod.py")["runs"][0]["results"]
    uris = {r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in from_subdir}
    assert uris == {"pkg/mod.py"}
    assert [r["partialFingerprints"] for r in from_subdir] == [r["partialFingerprints"] for r in from_root]


def test_sarif_uri_is_percent_encoded(project, capsys, sarif_validator):
    (project / "my dir").mkdir()
    (project / "my dir" / "données.py").write_text(SOURCE, encoding="utf-8")
    document = _sarif(capsys, "my dir")
    _assert_valid(sarif_validator, document)
    uri = document["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri == "my%20dir/donn%C3%A9es.py"


def test_sarif_fingerprints_are_unique_and_survive_edits_above(project, capsys):
    before = _sarif(capsys, "pkg")["runs"][0]["results"]
    prints = [r["partialFingerprints"]["primaryLocationLineHash"] for r in before]
    assert len(set(prints)) == len(prints)
    mod = project / "pkg" / "mod.py"
    mod.write_text('"""A docstring added above moves every finding down."""\n\n' + SOURCE, encoding="utf-8")
    after = _sarif(capsys, "pkg")["runs"][0]["results"]
    assert [r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in after] == \
        [line + 2 for line in LAMBDA_LINES]
    assert [r["partialFingerprints"]["primaryLocationLineHash"] for r in after] == prints
