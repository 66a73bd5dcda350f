"""analysis/values.py: constant folding, call arguments, and whether a call starts any worker at all."""

from __future__ import annotations

import pytest

from analysed import analyse
from winspawn_lint.analysis.values import MAYBE, NONE, SOME, UNKNOWN
from winspawn_lint.spawn_apis import ABSENT, DEFAULT_REGISTRY, Arg

# --- folding --------------------------------------------------------------------------------------------


def fold(source: str):
    """The folded value of the argument of the last line's ``use(...)``."""
    module = analyse(source)
    call, site = module.call(source.strip().splitlines()[-1].strip())
    return module.values.fold(call.args[0], site.scope)


@pytest.mark.parametrize("expression, value", [
    ("4", 4), ("-1", -1), ("2 * 3 + 1", 7), ("7 // 2", 3), ("7 % 4", 3), ("2 - 5", -3),
    ("None", None), ("'text'", "text"), ("min(4, 2)", 2), ("max(0, 3)", 3), ("int(2.0)", 2),
])
def test_literals_and_arithmetic_fold(expression, value):
    assert fold(f"use({expression})\n") == value


@pytest.mark.parametrize("expression", [
    "n", "os.cpu_count()", "args.workers", "1 / 0", "7 // 0", "2 ** 3", "-True", "min()", "max(*xs)",
    "min(a=1)", "[1, 2]", "f'{x}'",
])
def test_what_is_not_a_known_constant_is_unknown(expression):
    assert fold(f"use({expression})\n") is UNKNOWN


def test_a_name_assigned_once_folds_to_its_value():
    assert fold("workers = 2\nuse(workers * 2)\n") == 4


def test_a_name_assigned_twice_is_unknown():
    assert fold("workers = 2\nif fast:\n    workers = 0\nuse(workers)\n") is UNKNOWN


def test_a_parameter_is_unknown_even_with_a_default():
    assert fold("def main(workers=0):\n    use(workers)\n") is UNKNOWN


def test_an_imported_name_asks_inference_and_is_unknown_without_it():
    assert fold("from config import WORKERS\nuse(WORKERS)\n") is UNKNOWN


# --- arguments ------------------------------------------------------------------------------------------------


def argument(source: str, arg: Arg):
    module = analyse(source)
    call, site = module.call(source.strip().splitlines()[-1].strip())
    found, expr = module.values.argument(call, arg, site.scope)
    return found if found is ABSENT or found is UNKNOWN else module.text(found)


def test_an_argument_is_found_by_keyword_or_position():
    assert argument("f(1, 2, num_workers=3)\n", Arg("num_workers", 5)) == "3"
    assert argument("f(ds, 2)\n", Arg("batch_size", 1)) == "2"
    assert argument("f(ds)\n", Arg("batch_size", 1)) is ABSENT


def test_a_star_argument_before_the_position_hides_it():
    assert argument("f(*args)\n", Arg("batch_size", 1)) is UNKNOWN


def test_a_keyword_may_come_from_a_dict_unpacked_into_the_call():
    source = "kwargs = {'num_workers': 4, 'batch_size': 2}\nf(ds, **kwargs)\n"
    assert argument(source, Arg("num_workers", 5)) == "4"
    assert argument(source, Arg("timeout", 9)) is ABSENT
    assert argument("kwargs = dict(num_workers=0)\nf(ds, **kwargs)\n", Arg("num_workers")) == "0"


def test_a_dict_that_cannot_be_read_makes_its_keywords_unknown():
    assert argument("f(ds, **config())\n", Arg("num_workers")) is UNKNOWN
    assert argument("kwargs = {key: 1}\nf(ds, **kwargs)\n", Arg("num_workers")) is UNKNOWN
    assert argument("kwargs = dict(base, num_workers=0)\nf(ds, **kwargs)\n", Arg("num_workers")) is UNKNOWN


# --- worker counts --------------------------------------------------------------------------------------------

API = {api.key: api for api in DEFAULT_REGISTRY.apis}


def workers(api: str, source: str, assume_workers: bool = True) -> str:
    module = analyse(source, assume_workers)
    call, site = module.call(source.strip().splitlines()[-1].strip())
    return module.values.workers(API[api], call, site.scope)


@pytest.mark.parametrize("call, state", [
    ("DataLoader(ds)", NONE),  # num_workers defaults to 0
    ("DataLoader(ds, num_workers=0)", NONE),
    ("DataLoader(ds, num_workers=2)", SOME),
    ("DataLoader(ds, 8, True, None, None, 4)", SOME),  # num_workers is the sixth positional argument
    ("DataLoader(ds, num_workers=n)", MAYBE),
    ("DataLoader(ds, num_workers=max(1, n))", SOME),  # at least one, whatever n is
    ("DataLoader(ds, num_workers=min(0, n))", MAYBE),
])
def test_dataloader_workers(call, state):
    assert workers("torch.utils.data.DataLoader", f"{call}\n") == state


@pytest.mark.parametrize("call, state", [
    ("ds.map(f)", NONE), ("ds.map(f, num_proc=None)", NONE), ("ds.map(f, num_proc=0)", NONE),
    ("ds.map(f, num_proc=1)", SOME), ("ds.map(f, num_proc=4)", SOME),
])
def test_datasets_map_runs_in_process_without_num_proc(call, state):
    assert workers("datasets.Dataset.map", f"{call}\n") == state


def test_a_pool_without_a_count_starts_workers():
    assert workers("multiprocessing.Pool", "Pool()\n") == SOME


def test_the_count_may_come_from_an_argument_built_elsewhere():
    trainer = "transformers.Trainer"
    assert workers(trainer, "args = TrainingArguments(dataloader_num_workers=2)\nTrainer(model, args)\n") == SOME
    assert workers(trainer, "args = TrainingArguments(dataloader_num_workers=0)\nTrainer(model, args)\n") == NONE
    assert workers(trainer, "args = TrainingArguments(out)\nTrainer(model, args)\n") == NONE  # default 0
    assert workers(trainer, "Trainer(model)\n") == NONE
    assert workers(trainer, "Trainer(model, args=parsed.args)\n") == MAYBE
