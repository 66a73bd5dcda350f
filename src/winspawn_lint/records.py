"""Record classes without ``dataclasses``: what a check imports starts in milliseconds.

``@dataclass`` writes the methods of its class and compiles them when the module is imported (``exec``, some
0.3 ms a class), and importing ``dataclasses`` imports ``inspect``: the 53 record classes a check of one file
imported cost 17.5 ms, and the module 4.7 ms, of an 87 ms run.  A record class here names its fields in
``__slots__`` and writes its ``__init__`` (compiled once, into the byte code, like the rest of the module);
these bases give it what ``@dataclass`` did: a repr, ``replace``, and for a :class:`Value` equality and a hash
by its fields.  (The language server and the run-time emulation, which a check never imports, keep their
dataclasses.)

The ``self.x = x`` lines of each ``__init__`` are what ``@dataclass`` generated; one ``__init__`` here, setting
the slots from its arguments in a loop, would save them and cost every instance: 0.73 against 0.10 us for a
five-field record (``timeit``), and a cold diffusers check makes an index ``Site`` per statement (895,000
statements walked) besides its ``Obj``s.
"""

from __future__ import annotations

from reprlib import recursive_repr
from typing import Any, TypeVar

_R = TypeVar("_R", bound="Record")


class Record:
    """Fields named in ``__slots__`` (or, for a class that keeps a ``__dict__``, in ``_fields``), set by
    ``__init__`` from parameters of the same names; compared by identity.  (``__weakref__`` in the slots lets
    the class be weakly referenced; it is not a field.)"""

    __slots__ = ()
    _fields: tuple[str, ...] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "_fields" not in cls.__dict__:  # (a subclass's fields follow those it inherits)
            cls._fields += tuple(name for name in cls.__dict__.get("__slots__", ()) if not name.startswith("__"))

    @recursive_repr()
    def __repr__(self) -> str:
        shown = ", ".join(f"{name}={getattr(self, name, '<unset>')!r}" for name in self._fields)
        return f"{type(self).__name__}({shown})"

    def replace(self: _R, **changes: Any) -> _R:
        """A copy with *changes* (``dataclasses.replace``)."""
        return type(self)(**{**{name: getattr(self, name) for name in self._fields}, **changes})


class Value(Record):
    """A record equal to another of its class with equal fields, and hashed by them (a frozen dataclass);
    ``_compared`` names the fields that count when not all do.  Its fields are not to change once made."""

    __slots__ = ()
    _compared: tuple[str, ...] = ()

    def _key(self) -> tuple:
        return tuple(getattr(self, name) for name in (self._compared or self._fields))

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        return self._key() == other._key()  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash(self._key())
