"""What the unit tests of a codemod assert of a finding it leaves: the fix is declined with the reason the user
reads, and the check does not mark the finding fixable (``[*]``) either."""

from __future__ import annotations

from winspawn_lint import cli, fix_text
from winspawn_lint.rules import RULES
from winspawn_lint.settings import Settings

ALL = Settings(select=frozenset(RULES))


def assert_declined(text: str, code: str, why: str, tmp_path, capsys) -> None:
    """``--fix --unsafe-fixes`` leaves ``text`` as it is, saying ``why`` (None: saying nothing, the check gave the
    finding no fix) of ``code``'s finding, and ``--unsafe-fixes`` reports it without ``[*]``."""
    outcome = fix_text(text, "train.py", ALL, unsafe=True)
    assert outcome.text == text
    if why is None:
        assert f"{code} not fixed" not in (outcome.note or "")
    else:
        assert f"{code} not fixed: {why}" in outcome.note
    (tmp_path / "train.py").write_text(text, encoding="utf-8")
    assert cli.main(["--isolated", "--no-cache", "--unsafe-fixes", str(tmp_path / "train.py")]) == 1
    out = capsys.readouterr().out
    assert f" {code} " in out and "[*]" not in out
