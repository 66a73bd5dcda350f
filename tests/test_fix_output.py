"""ruff's fix conventions in the command's output: ``[*]`` on fixable findings, the closing summary,
``--unsafe-fixes`` alone, ``--show-fixes``."""

from __future__ import annotations

import textwrap

import pytest

from winspawn_lint import cli

POOL = textwrap.dedent('''\
    from multiprocessing import Pool


    def square(x):
        return x * x


    pool = Pool(2)
    print(pool.map(square, range(4)))
    ''')
LAMBDA = textwrap.dedent('''\
    from multiprocessing import Pool


    def main():
        with Pool(2) as pool:
            print(pool.map(lambda x: x * x, range(4)))


    if __name__ == "__main__":
        main()
    ''')


@pytest.fixture
def project(tmp_path, monkeypatch):
    (tmp_path / "pyproject.toml").write_text("", encoding="utf-8")
    (tmp_path / "pool_job.py").write_text(POOL, encoding="utf-8")
    (tmp_path / "uses_it.py").write_text("import pool_job\n", encoding="utf-8")  # the wrap is unsafe here
    (tmp_path / "lam.py").write_text(LAMBDA, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _run(capsys, *args):
    status = cli.main(["--isolated", "--select", "WSP101,WSP201", *args])
    captured = capsys.readouterr()
    return status, captured.out.splitlines(), captured.err


def test_check_marks_safe_fixes_and_counts_hidden_ones(project, capsys):
    status, out, _ = _run(capsys, "pool_job.py", "lam.py")
    assert status == 1
    assert out[0].startswith("lam.py:6:24: WSP201 [*] ")
    assert out[1].startswith("pool_job.py:8:8: WSP101 `")  # unsafe: no marker
    assert out[2:] == ["Found 2 errors.",
                       "[*] 1 fixable with `--fix` (1 unsafe fix available with `--fix --unsafe-fixes`)."]


def test_unsafe_fixes_alone_shows_them_as_fixable_and_writes_nothing(project, capsys):
    status, out, _ = _run(capsys, "--unsafe-fixes", "pool_job.py")
    assert status == 1 and (project / "pool_job.py").read_text(encoding="utf-8") == POOL
    assert out[0].startswith("pool_job.py:8:8: WSP101 [*] ")
    assert out[1:] == ["Found 1 error.", "[*] 1 fixable with `--fix`."]


def test_fix_summary_and_show_fixes(project, capsys):
    status, out, err = _run(capsys, "--fix", "--show-fixes", "pool_job.py", "lam.py")
    assert status == 1
    assert out[0].startswith("pool_job.py:8:8: WSP101 `")
    assert out[1:] == ["", "Fixed 1 error:", "- lam.py:", "    1 × WSP201 (lambda-to-worker)", "",
                       "Found 2 errors (1 fixed, 1 remaining).", "1 unsafe fix available with `--fix --unsafe-fixes`."]
    assert "pool_job.py: note: WSP101 not fixed: moving code under the main guard is an unsafe fix here" in err


def test_a_declined_fix_loses_its_marker(project, capsys):
    (project / "late.py").write_text(textwrap.dedent('''\
        from multiprocessing import Pool


        def main():
            with Pool(2) as pool:
                print(pool.map(lambda x: x * k, range(4)))
            k = 3


        if __name__ == "__main__":
            main()
        '''), encoding="utf-8")
    status, out, err = _run(capsys, "--fix", "--unsafe-fixes", "late.py")
    assert status == 1 and "not fixed: `k` is assigned only after it" in err
    assert " WSP201 `" in out[0] or " WSP201 lambda" in out[0]
    assert "[*]" not in out[0] and out[1:] == ["Found 1 error (0 fixed, 1 remaining)."]


def test_a_local_function_that_a_factory_returns_is_reported_at_its_def_and_hoisted(project, capsys):
    # The local function comes out of a factory in another function and is stored by `__init__`: WSP204 is reported
    # at the function (what to move), and the fix moves it to module level, where the factory still finds it.
    (project / "factory.py").write_text(textwrap.dedent('''\
        from torch.utils.data import DataLoader, Dataset


        def make_fn():
            def fn(x):
                return x
            return fn


        class Items(Dataset):
            def __init__(self):
                self.fn = make_fn()

            def __len__(self):
                return 2

            def __getitem__(self, i):
                return self.fn(i)


        if __name__ == "__main__":
            for batch in DataLoader(Items(), num_workers=2):
                print(batch)
        '''), encoding="utf-8")
    status = cli.main(["--isolated", "factory.py"])
    out = capsys.readouterr().out.splitlines()
    assert status == 1 and out[0].startswith("factory.py:5:5: WSP204 [*] local function `fn` stored on `Items`")
    assert cli.main(["--isolated", "--fix", "factory.py"]) == 1
    fixed = (project / "factory.py").read_text(encoding="utf-8")
    assert fixed.startswith("from torch.utils.data import DataLoader, Dataset\n\n\ndef fn(x):\n    return x\n")
    capsys.readouterr()
    assert cli.main(["--isolated", "factory.py"]) == 0


def test_diff_summary_goes_to_stderr(project, capsys):
    status, out, err = _run(capsys, "--diff", "pool_job.py", "lam.py")
    assert status == 1 and out[0] == "--- lam.py"
    assert err.splitlines()[-1] == "Would fix 1 error (1 additional fix available with `--unsafe-fixes`)."
