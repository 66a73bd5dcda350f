"""``action.yml``, the composite GitHub Action: its shell steps run here as a runner would run them.

GitHub is not needed to run a composite action's ``run:`` steps: each is a bash script whose inputs arrive in
``env:`` (the action never splices ``${{ }}`` into a script), with ``GITHUB_ENV``, ``RUNNER_TEMP`` and the action's
directory.  The test reads action.yml, evaluates each step's ``if:``, substitutes the inputs and runs the script in a
scratch repository, offline (pip installs from the wheelhouse).  The ``uses:`` steps (actions/setup-python,
codeql-action's upload-sarif) are GitHub's own: the test checks what they are given, not what they do.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from samples import LAMBDA_POOL
from wheelhouse import pip_environment

ROOT = Path(__file__).resolve().parent.parent
ACTION = ROOT / "action.yml"
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
CONDITION = re.compile(r"inputs\.([\w-]+) (==|!=) '([^']*)'\Z")

CLEAN = "x = 1\n"


def load_action() -> dict:
    import yaml

    return yaml.safe_load(ACTION.read_text(encoding="utf-8"))


def test_the_action_is_a_composite_with_the_documented_inputs():
    action = load_action()
    assert action["runs"]["using"] == "composite"
    assert set(action["inputs"]) == {"version", "source", "args", "sarif", "sarif-file", "python-version"}
    uses = [step["uses"] for step in action["runs"]["steps"] if "uses" in step]
    assert uses == ["actions/setup-python@v5", "github/codeql-action/upload-sarif@v3"]
    page = (ROOT / "docs" / "github-action.md").read_text(encoding="utf-8")
    for name in action["inputs"]:
        assert f"`{name}`" in page, f"docs/github-action.md does not describe the input {name}"


def test_no_input_is_spliced_into_a_script():
    # ${{ inputs.x }} inside `run:` is pasted into the script before bash reads it: an `args` holding
    # `"; curl ... | sh; "` would run. The inputs go through env: instead.
    for step in load_action()["runs"]["steps"]:
        if "run" in step:
            assert "${{" not in step["run"], step["name"]
            assert step["shell"] == "bash"


def _value(expression: str, inputs: dict[str, str], action_path: Path) -> str:
    if expression.startswith("inputs."):
        return inputs[expression[len("inputs."):]]
    assert expression == "github.action_path", f"the test does not know {expression!r}"
    return str(action_path)


def _substitute(text: str, inputs: dict[str, str], action_path: Path) -> str:
    return EXPRESSION.sub(lambda match: _value(match.group(1), inputs, action_path), str(text))


def _applies(condition: str | None, inputs: dict[str, str]) -> bool:
    if condition is None:
        return True
    match = CONDITION.match(condition)
    assert match, f"the test cannot evaluate if: {condition!r}"
    name, operator, literal = match.groups()
    return (inputs[name] == literal) == (operator == "==")


def run_action(given: dict[str, str], workdir: Path, runner_temp: Path, action_path: Path, env: dict[str, str],
               steps: tuple[str, ...] | None = None) -> dict[str, object]:
    """Run the action's shell steps (those named in *steps*, or all) with the inputs *given*; step name ->
    CompletedProcess, or for a ``uses:`` step its substituted ``with:``."""
    action = load_action()
    inputs = {name: str(spec.get("default", "")) for name, spec in action["inputs"].items()}
    inputs.update(given)
    github_env = runner_temp / "github_env"
    github_env.touch()
    done: dict[str, object] = {}
    for step in action["runs"]["steps"]:
        if (steps is not None and step["name"] not in steps) or not _applies(step.get("if"), inputs):
            continue
        if "uses" in step:
            done[step["name"]] = {k: _substitute(v, inputs, action_path) for k, v in step.get("with", {}).items()}
            continue
        exported = dict(line.split("=", 1) for line in github_env.read_text().splitlines() if "=" in line)
        step_env = {**env, "RUNNER_TEMP": str(runner_temp), "GITHUB_ENV": str(github_env),
                    "GITHUB_ACTION_PATH": str(action_path), **exported,
                    **{k: _substitute(v, inputs, action_path) for k, v in step.get("env", {}).items()}}
        done[step["name"]] = subprocess.run(["bash", "-c", step["run"]], cwd=workdir, env=step_env,
                                            capture_output=True, text=True, timeout=600)
    return done


def _describe(run) -> str:
    return f"exit {run.returncode}\n--- stdout\n{run.stdout}\n--- stderr\n{run.stderr}"


@pytest.fixture(scope="module")
def action_env(tmp_path_factory, wheelhouse) -> tuple[dict[str, str], Path]:
    """The runner's environment (this interpreter's `python` first on PATH; pip offline, from the wheelhouse) and
    the action's directory: a copy of what the package is built from, so the build leaves this checkout alone."""
    checkout = tmp_path_factory.mktemp("action") / "winspawn-lint"
    checkout.mkdir()
    for name in ("action.yml", "pyproject.toml", "README.md", "LICENSE"):
        shutil.copy2(ROOT / name, checkout / name)
    shutil.copytree(ROOT / "src", checkout / "src", ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    env = pip_environment()
    env.update(PIP_FIND_LINKS=str(wheelhouse), NO_COLOR="1",
               PATH=os.pathsep.join([os.path.dirname(sys.executable), env.get("PATH", "")]))
    env.pop("WINSPAWN_LINT_CACHE_DIR", None)
    return env, checkout


@pytest.fixture
def repository(tmp_path) -> Path:
    repo = tmp_path / "repo"
    (repo / "src").mkdir(parents=True)
    (repo / "src" / "train.py").write_text(LAMBDA_POOL, encoding="utf-8")
    (repo / "src" / "clean.py").write_text(CLEAN, encoding="utf-8")
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    return repo


@pytest.mark.integration
def test_the_steps_install_annotate_and_write_sarif(repository, tmp_path, action_env):
    env, action_path = action_env
    runner_temp = tmp_path / "runner"
    runner_temp.mkdir()
    done = run_action({"sarif": "true"}, repository, runner_temp, action_path, env)
    assert list(done) == ["Set up Python", "Install winspawn-lint", "Write the SARIF log",
                          "Upload the SARIF log to code scanning", "Check"]
    assert done["Set up Python"] == {"python-version": "3.12"}
    install = done["Install winspawn-lint"]
    assert install.returncode == 0 and install.stdout.strip().startswith("winspawn-lint "), _describe(install)

    sarif = done["Write the SARIF log"]
    assert sarif.returncode == 0, _describe(sarif)  # --exit-zero: the log is uploaded whatever it holds
    log = json.loads((repository / "winspawn-lint.sarif").read_text(encoding="utf-8"))
    assert [result["ruleId"] for result in log["runs"][0]["results"]] == ["WSP201"]
    assert done["Upload the SARIF log to code scanning"] == {"sarif_file": "winspawn-lint.sarif",
                                                             "category": "winspawn-lint"}

    check = done["Check"]
    assert check.returncode == 1, _describe(check)  # findings fail the job
    assert check.stdout.startswith("::error file=src/train.py,line=6,col=24,"), _describe(check)
    assert "title=WSP201 lambda-to-worker::" in check.stdout


@pytest.mark.integration
def test_source_args_and_sarif_off(repository, tmp_path, action_env):
    env, action_path = action_env
    runner_temp = tmp_path / "runner"
    runner_temp.mkdir()
    done = run_action({"source": str(action_path), "args": "src/clean.py --extend-select WSP105", "python-version": ""},
                      repository, runner_temp, action_path, env)
    assert list(done) == ["Install winspawn-lint", "Check"]  # no setup-python, no SARIF
    check = done["Check"]
    assert (check.returncode, check.stdout) == (0, ""), _describe(check)
    assert not (repository / "winspawn-lint.sarif").exists()
