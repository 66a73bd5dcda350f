"""The real-code audit's scorer (benchmarks/audit/score.py) counts what issue 11 says it counts.

A finding of the labelled code on the labelled line is a true positive; a hazard label without one is a miss;
a finding on a line labelled ``safe``, or of another code on a hazard line, is a false positive; a finding at a
label's use line is reported but counts only with ``--lenient-location``; findings elsewhere are unlabelled.
Both labels files (the audit set and the held-out set, which shares no repository with it) are well formed:
every row has a commit, a known class, evidence and a reason.
"""

from __future__ import annotations

import csv
import importlib.util
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from winspawn_lint import rules

AUDIT = Path(__file__).resolve().parent.parent / "benchmarks" / "audit"


@pytest.fixture(scope="module")
def score_module():
    spec = importlib.util.spec_from_file_location("audit_score", AUDIT / "score.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["audit_score"] = module
    spec.loader.exec_module(module)
    return module


def label(m, line, cls, use=()):
    return m.Label("repo", "c0ffee", "train.py", line, cls, "repro:r01", "why", tuple(use))


def finding(m, line, code):
    return m.Finding("repo", "train.py", line, code, "message")


def test_exact_line_and_code_is_a_true_positive_and_the_rest_are_misses(score_module):
    m = score_module
    labels = [label(m, 10, "WSP201"), label(m, 20, "WSP202")]
    result = m.score(labels, [finding(m, 10, "WSP201")], tolerance=0)
    assert result["per_class"]["WSP201"]["recall"] == 1.0
    assert result["per_class"]["WSP202"]["recall"] == 0.0
    assert [lab.line for lab in result["misses"]] == [20]
    assert result["recall"] == 0.5 and result["precision"] == 1.0


def test_findings_on_safe_lines_and_wrong_codes_are_false_positives(score_module):
    m = score_module
    labels = [label(m, 10, "safe"), label(m, 20, "WSP204")]
    result = m.score(labels, [finding(m, 10, "WSP201"), finding(m, 20, "WSP201")], tolerance=0)
    assert len(result["false_positive_list"]) == 2
    assert result["per_class"]["WSP201"]["precision"] == 0.0
    assert result["per_class"]["WSP204"]["recall"] == 0.0


def test_tolerance_widens_the_match(score_module):
    m = score_module
    labels = [label(m, 10, "WSP201")]
    assert m.score(labels, [finding(m, 11, "WSP201")], tolerance=0)["true_positives"] == 0
    assert m.score(labels, [finding(m, 11, "WSP201")], tolerance=1)["true_positives"] == 1


def test_a_finding_at_the_use_line_counts_only_when_lenient(score_module):
    m = score_module
    labels = [label(m, 10, "WSP202", use=(30,))]
    strict = m.score(labels, [finding(m, 30, "WSP202")], tolerance=0)
    assert strict["true_positives"] == 0 and [lab.line for lab in strict["found_at_use_site"]] == [10]
    assert strict["unlabelled"] == []
    lenient = m.score(labels, [finding(m, 30, "WSP202")], tolerance=0, lenient_location=True)
    assert lenient["true_positives"] == 1


def test_findings_on_unlabelled_lines_are_not_scored(score_module):
    m = score_module
    result = m.score([label(m, 10, "safe")], [finding(m, 50, "WSP105")], tolerance=0)
    assert result["false_positives"] == 0 and len(result["unlabelled"]) == 1


def test_a_file_the_linter_cannot_read_is_named_with_its_reason(score_module):
    stderr = ("src/new_syntax.py: error: line 66: uses type parameters (PEP 695), which needs Python 3.12+\n"
              "other.py: error: not asked for\n"
              "Traceback-free noise\n")
    assert score_module.unreadable_files(stderr, ["src/new_syntax.py", "train.py"]) == {
        "src/new_syntax.py": "line 66: uses type parameters (PEP 695), which needs Python 3.12+"}


def test_in_a_notebook_only_the_cells_the_linter_cannot_read_are_unread(score_module, tmp_path):
    """The linter checks a notebook's other cells when one does not parse (the kernel runs them): only the labels
    in such cells are left out, and a file of another kind is read whole or not at all."""
    cells = ["import os\n", "X = ....  # your code here\n", "print(os.getcwd())\n", "def f(:\n"]
    (tmp_path / "course.ipynb").write_text(json.dumps({"cells": [
        {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": source}
        for source in cells], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}), encoding="utf-8")
    (tmp_path / "old.py").write_text("print 'x'\n", encoding="utf-8")
    assert score_module.unread_cells(tmp_path / "course.ipynb") == {2, 4}
    assert score_module.unread_cells(tmp_path / "old.py") is None


def test_use_lines_in_other_files_are_left_out(score_module):
    assert score_module._use_lines("49;train.py:60;data.py:7;trainer.py", "train.py") == (49, 60)


def test_labels_and_corpus_are_chosen_on_the_command_line(score_module, tmp_path, capsys):
    repo = tmp_path / "corpus" / "repo"
    repo.mkdir(parents=True)
    (repo / ".commit").write_text("c0ffee\n")
    (tmp_path / "labels.tsv").write_text(
        "repo\tcommit\tpath\tline\tclass\tevidence\twhy\tuse_lines\n"
        "repo\tdeadbeef\ttrain.py\t3\tWSP201\trepro:r01\twhy\t\n", encoding="utf-8")
    score_module.main(["--labels", str(tmp_path / "labels.tsv"), "--corpus", str(tmp_path / "corpus")])
    out = capsys.readouterr().out
    assert "0 labels scored" in out and "commit deadbeef labelled, c0ffee extracted" in out


@pytest.mark.parametrize("default_rules, selection", [(False, ["--select", "WSP"]), (True, [])])
def test_every_rule_is_selected_unless_the_default_selection_is_asked_for(score_module, tmp_path, monkeypatch,
                                                                          default_rules, selection):
    seen = []

    def run(cmd, **kwargs):
        seen.append(cmd)
        return subprocess.CompletedProcess(cmd, 0, "[]", "")

    monkeypatch.setattr(score_module.subprocess, "run", run)
    (tmp_path / "repo").mkdir()
    score_module.run_linter(tmp_path, "repo", ["train.py"], 60, 1, default_rules)
    cmd = seen[0]
    assert cmd[cmd.index("--isolated") + 1:cmd.index("--format")] == selection


def read_rows(name):
    with (AUDIT / name).open(encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh, delimiter="\t", quoting=csv.QUOTE_NONE))


@pytest.mark.parametrize("name", ["labels.tsv", "holdout.tsv"])
def test_the_labels_files_are_well_formed(name):
    rows = read_rows(name)
    codes = {getattr(rule, "code", rule) for rule in rules.RULES}
    seen = set()
    for row in rows:
        assert re.fullmatch(r"[0-9a-f]{40}", row["commit"]), row
        assert row["class"] == "safe" or re.fullmatch(r"WSP\d{3}", row["class"]), row
        if row["class"] != "safe":
            assert row["class"] in codes, row
        assert re.fullmatch(r"(repro:r\d\d|issue:[\w.-]+/[\w.-]+#\d+)(;(repro:r\d\d|issue:[\w.-]+/[\w.-]+#\d+))*",
                            row["evidence"]), row
        for ref in re.findall(r"repro:(r\d\d)", row["evidence"]):
            assert list((AUDIT / "repro").glob(f"{ref}_*")), ref
        assert row["why"].strip() and int(row["line"]) > 0
        key = (row["repo"], row["path"], row["line"])
        assert key not in seen, key
        seen.add(key)
        assert all(u.isdigit() for u in (row["use_lines"] or "").split(";") if u), row


def test_the_audit_set_covers_ten_repositories():
    rows = read_rows("labels.tsv")
    assert len(rows) >= 130 and len({r["repo"] for r in rows}) >= 10


def test_the_holdout_set_shares_no_repository_with_the_audit_set():
    holdout = read_rows("holdout.tsv")
    assert len(holdout) >= 50
    assert not {r["repo"] for r in holdout} & {r["repo"] for r in read_rows("labels.tsv")}


def test_a_finding_inside_the_loop_a_label_starts_counts_only_leniently(score_module, tmp_path):
    m = score_module
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "train.py").write_text(
        "loader = make()\n"
        "for epoch in range(3):\n"
        "    for batch in loader:\n"
        "        step(batch)\n"
        "done()\n")
    labels = m.with_statement_lines([label(m, 2, "WSP101"), label(m, 5, "safe")], tmp_path)
    assert labels[0].use_lines == (3, 4) and labels[1].use_lines == ()
    strict = m.score(labels, [finding(m, 3, "WSP101")], tolerance=0)
    assert [lab.line for lab in strict["misses"]] == [2] and strict["found_at_use_site"] == [labels[0]]
    lenient = m.score(labels, [finding(m, 3, "WSP101")], tolerance=0, lenient_location=True)
    assert lenient["recall"] == 1.0 and lenient["precision"] == 1.0


def test_a_finding_inside_a_statement_written_over_lines_counts_only_leniently(score_module, tmp_path):
    # (a dict of lambdas labelled on its first line, the findings on the lambdas: AutoAugment's `SubPolicy`)
    m = score_module
    (tmp_path / "repo").mkdir()
    (tmp_path / "repo" / "train.py").write_text(
        "func = {\n"
        "    'shear': lambda img: img,\n"
        "    'rotate': lambda img: img,\n"
        "}\n"
        "def f():\n"
        "    return 1\n")
    labels = m.with_statement_lines([label(m, 1, "WSP204"), label(m, 5, "safe")], tmp_path)
    assert labels[0].use_lines == (2, 3, 4) and labels[1].use_lines == ()  # (not a def's body)
    strict = m.score(labels, [finding(m, 2, "WSP204")], tolerance=0)
    assert [lab.line for lab in strict["misses"]] == [1]
    lenient = m.score(labels, [finding(m, 2, "WSP204"), finding(m, 3, "WSP204")], tolerance=0, lenient_location=True)
    assert lenient["recall"] == 1.0 and lenient["precision"] == 1.0
