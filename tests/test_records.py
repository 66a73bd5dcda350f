"""The record classes (``winspawn_lint.records``) behave as the dataclasses they replaced: the repr, ``replace``,
equality and hashing by the compared fields, pickling between a parallel run's processes."""

from __future__ import annotations

import pickle
from dataclasses import dataclass, field

import pytest

from winspawn_lint.finding import Finding
from winspawn_lint.io.cache import Entry
from winspawn_lint.records import Record, Value
from winspawn_lint.rules import FixSafety
from winspawn_lint.settings import Settings
from winspawn_lint.spawn_apis import Arg


class _Point(Value):
    __slots__ = ("x", "y", "label")
    _compared = ("x", "y")

    def __init__(self, x: int, y: int, label: str = "") -> None:
        self.x = x
        self.y = y
        self.label = label


@dataclass(frozen=True)
class _DataPoint:
    x: int
    y: int
    label: str = field(default="", compare=False)


def test_the_repr_is_the_dataclass_one():
    # (sorting keys may hold a record's repr: it must not change with the class's kind)
    assert repr(_Point(1, 2, "a")) == repr(_DataPoint(1, 2, "a")).replace("_DataPoint", "_Point")
    assert repr(Arg("func", 0, kind="callable")) == \
        "Arg(keyword='func', position=0, kind='callable', rest=False, with_tasks=False)"


def test_equality_and_hash_count_the_compared_fields_only():
    assert _Point(1, 2, "a") == _Point(1, 2, "b") and hash(_Point(1, 2, "a")) == hash(_Point(1, 2, "b"))
    assert _Point(1, 2) != _Point(1, 3)
    assert _Point(1, 2) != (1, 2)  # (another type is never equal)
    first = Finding("WSP201", 3, 4, 3, 9, {"what": "a lambda"}, fix_safety=FixSafety.NONE)
    assert first == Finding("WSP201", 3, 4, 3, 9) and len({first, Finding("WSP201", 3, 4, 3, 9)}) == 1


def test_replace_makes_a_copy_with_the_changes():
    point = _Point(1, 2, "a")
    moved = point.replace(y=5)
    assert (moved.x, moved.y, moved.label) == (1, 5, "a") and (point.y, type(moved)) == (2, _Point)
    finding = Finding("WSP201", 3, 4, 3, 9, {"what": "a lambda"})
    assert finding.replace(fix_safety=FixSafety.NONE).safety is FixSafety.NONE
    assert finding.replace(fix_safety=FixSafety.NONE).args == {"what": "a lambda"}


def test_a_record_has_no_field_its_class_does_not_name():
    with pytest.raises(AttributeError):
        _Point(1, 2).z = 3  # type: ignore[attr-defined]
    assert not hasattr(Record(), "__dict__")


def test_records_travel_to_a_worker_and_back():
    finding = Finding("WSP101", 1, 0, 1, 5, {"what": "Pool"}, platforms=("windows",))
    back = pickle.loads(pickle.dumps(finding))
    assert back == finding and (back.args, back.platforms) == ({"what": "Pool"}, ("windows",))
    settings = Settings(select=frozenset({"WSP101"}))
    assert settings.registry is not None  # (a cached property: kept in the instance, not sent)
    sent = pickle.dumps(settings)
    assert b"registry" not in sent and pickle.loads(sent) == settings
    entry = Entry((1, 2), "0" * 32, True, [], {"/a/b.py": [3, 4]})
    back_entry = pickle.loads(pickle.dumps(entry))
    assert (back_entry.stamp, back_entry.dependencies, back_entry.fixes) == ((1, 2), {"/a/b.py": [3, 4]}, {})
