"""The rule catalogue: every WSP code, its name, message, default, fix safety and summary.

This is the single source the flake8 plugin, the CLI (``--select``,
``--explain``, SARIF rule metadata) and the docs tests read.  Codes are stable:
never renumber; the hundreds digit is the family (1 import time, 2 callables,
3 state, 9 opt-in portability).  The long documentation of each rule lives in
``rule_docs/WSPnnn.md`` beside this module, in ruff's section layout.
"""

from __future__ import annotations

import enum

from .records import Value
from .spawn_apis import NOT_FORK, SPAWN_ONLY, UNKNOWN, WINDOWS_ONLY


class FixSafety(enum.Enum):
    """How far ``--fix`` may go for a rule (ruff's model)."""

    SAFE = "safe"  # keeps the program's meaning and its comments
    UNSAFE = "unsafe"  # valid code, may change meaning (e.g. for a module's importers)
    NONE = "none"  # reported only

    def applies(self, unsafe: bool) -> bool:
        """Whether ``--fix`` applies this grade of fix (``unsafe``: with ``--unsafe-fixes``)."""
        return self is FixSafety.SAFE or (unsafe and self is FixSafety.UNSAFE)


class Rule(Value):
    __slots__ = ("code", "name", "message", "default", "fix_safety", "summary", "breaks", "fix_needs_hint",
                 "masked_by")

    def __init__(self, code: str, name: str, message: str, default: bool, fix_safety: FixSafety, summary: str,
                 breaks: str = NOT_FORK, fix_needs_hint: bool = False, masked_by: tuple[Rule, ...] = ()) -> None:
        self.code = code
        self.name = name
        self.message = message  # str.format template; fields come from the Finding's args
        self.default = default
        self.fix_safety = fix_safety
        self.summary = summary
        #: under which start methods the hazard strikes (see :func:`.spawn_apis.breaks_on`); a finding may
        #: narrow or widen it (a task sent to a running pool is pickled under fork too)
        self.breaks = breaks
        #: the fix rewrites the construct the check points it at (``Finding.fix_hint``: a lambda, a definition,
        #: an ``open()`` call); a finding of this rule without a hint has no fix (it shows no ``[*]``)
        self.fix_needs_hint = fix_needs_hint
        #: rules whose hazard keeps this one from happening, where the check then says nothing (a training loop
        #: at import time never reaches a second epoch under spawn): a fix of one of them may reveal this
        #: finding, which the fixer does not count as one it introduced
        self.masked_by = masked_by

    @property
    def family(self) -> str:
        return self.code[:4] + "xx"

    def docs(self) -> str:
        """The rule's documentation page (markdown)."""
        from importlib import resources  # (zipfile and pathlib with it: not what a check needs)

        return resources.files(__package__).joinpath(f"rule_docs/{self.code}.md").read_text(encoding="utf-8")


WSP101 = Rule(
    "WSP101",
    "unguarded-process-start",
    "{what} starts worker processes at import time{chain}; spawned workers re-import this module: "
    'move it under `if __name__ == "__main__":`',
    True,
    FixSafety.UNSAFE,
    "Code that starts worker processes runs when the module is imported.",
)

WSP102 = Rule(
    "WSP102",
    "broken-main-guard",
    "this `if` looks like a main guard but {why}; its body {effect}",
    True,
    FixSafety.UNSAFE,
    'An `if` that means to be `if __name__ == "__main__":` but is not.',
)

WSP103 = Rule(
    "WSP103",
    "import-time-heavy-work",
    "{what} runs at import time{chain} {where}; every spawned worker repeats it",
    True,
    FixSafety.UNSAFE,
    "Model or data loading at import time in a module whose workers re-import it.",
    breaks=SPAWN_ONLY,
)

WSP104 = Rule(
    "WSP104",
    "start-method-at-import",
    "`{what}` without `force=True` runs at import time{chain}; every spawned child re-runs it and fails "
    'with "context has already been set"',
    True,
    FixSafety.UNSAFE,
    "`set_start_method()` called at import time, outside the main guard.",
)

WSP105 = Rule(
    "WSP105",
    "missing-freeze-support",
    "main guard of a module that starts processes does not call `freeze_support()` first "
    "(needed by frozen Windows executables)",
    False,
    FixSafety.SAFE,
    "The main guard does not begin with `multiprocessing.freeze_support()`.",
    breaks=WINDOWS_ONLY,
    masked_by=(WSP102,),
)

WSP106 = Rule(
    "WSP106",
    "definition-under-main-guard",
    "{role} of {api} is {what}, defined under `if __name__ == \"__main__\":` ({line}); a spawned worker "
    "re-imports this module as `__mp_main__`, where `{name}` does not exist: define it at module level",
    True,
    FixSafety.UNSAFE,
    "A function or class that a worker needs is defined inside the main guard.",
)

WSP107 = Rule(
    "WSP107",
    "global-assigned-at-run-time",
    "`{name}` is read in worker processes ({worker}) but assigned at run time ({where}, {line}), which a "
    "spawned worker's import of {imported} never runs: it sees {seen}; pass the value as an argument",
    True,
    FixSafety.UNSAFE,
    "A worker reads a global that only the parent assigns (or fills), under the main guard or through `global`.",
)

WSP201 = Rule(
    "WSP201",
    "lambda-to-worker",
    "lambda passed as {role} to {api}, which pickles it for worker processes: "
    "\"Can't pickle <lambda>\" {when}; {remedy}",
    True,
    FixSafety.SAFE,
    "A lambda reaches a worker that pickles with the standard pickler.",
    fix_needs_hint=True
)

WSP202 = Rule(
    "WSP202",
    "local-function-to-worker",
    "{what} passed as {role} to {api} is defined inside a function and cannot be pickled for worker "
    "processes; {remedy}",
    True,
    FixSafety.UNSAFE,
    "A function defined inside another function reaches a pickle-based worker.",
    fix_needs_hint=True
)

WSP203 = Rule(
    "WSP203",
    "local-class-to-worker",
    "instance of `{cls}`, a class defined inside a function, passed as {role} to {api}: it cannot be "
    "pickled for worker processes; {remedy}",
    True,
    FixSafety.UNSAFE,
    "An instance of a class defined inside a function reaches a worker.",
    fix_needs_hint=True
)

WSP204 = Rule(
    "WSP204",
    "unpicklable-callable-attribute",
    "{what} stored on {owner}{chain}, which is sent to worker processes by {api}; the object cannot be pickled: "
    "{remedy}",
    True,
    FixSafety.SAFE,
    "An object sent to workers keeps a lambda or local function in an attribute.",
    fix_needs_hint=True
)

WSP205 = Rule(
    "WSP205",
    "class-replaced-by-decorator",
    "`@{decorator}` replaces class `{cls}` with a {kind}, so its instances cannot be pickled for worker "
    "processes{via}; decorate the methods instead",
    True,
    FixSafety.NONE,
    "A decorator such as `@torch.no_grad()` turns a class whose instances go to workers into a function.",
)

WSP206 = Rule(
    "WSP206",
    "notebook-definition-to-worker",
    "{what}, defined in the notebook, reaches {api} as {role} in {where}, {how}; move it into a `.py` module "
    "next to the notebook and import it",
    True,
    FixSafety.UNSAFE,
    "A function or class defined in a notebook reaches a worker that pickles with the standard pickler, or a "
    "function that reads the notebook's names reaches one that pickles with dill.",
)

WSP301 = Rule(
    "WSP301",
    "unpicklable-attribute",
    "`self.{attr}` holds {what}, and `{owner}` instances are sent to worker processes{via}; open it "
    "lazily in the worker or define `__getstate__`",
    True,
    FixSafety.UNSAFE,
    "An object sent to workers stores an unpicklable resource in `__init__`.",
    fix_needs_hint=True
)

WSP302 = Rule(
    "WSP302",
    "unpicklable-argument",
    "{what} passed as {role} to {api} cannot be pickled for worker processes; pass what is needed to "
    "re-create it (a path, a config) instead",
    True,
    FixSafety.UNSAFE,
    "An unpicklable resource is passed directly to a worker.",
    fix_needs_hint=True,
)

WSP901 = Rule(
    "WSP901",
    "lambda-to-dill-worker",
    "{what} passed to {api} works only because it pickles with dill; it breaks if this code "
    "moves to a pickle-based worker",
    False,
    FixSafety.SAFE,
    "A lambda or closure given to `datasets` `.map/.filter(num_proc>1)` (portability).",
    breaks=UNKNOWN,
    fix_needs_hint=True
)


WSP902 = Rule(
    "WSP902",
    "dataloader-workers-restarted-per-epoch",
    "`DataLoader` with workers iterated in a loop ({line}) without `persistent_workers=True`: every "
    "iteration starts new workers, and each spawned worker imports the script again",
    False,
    FixSafety.UNSAFE,
    "A `DataLoader` with workers and no `persistent_workers=True` is iterated once per epoch (performance).",
    breaks=SPAWN_ONLY,
    fix_needs_hint=True,
    masked_by=(WSP101,),
)

# Every Rule defined above, in catalogue order; a rule is named by its own code, so a check that emits
# `rules.WSP2O1` fails at import rather than being silently dropped.
RULES: dict[str, Rule] = {name: value for name, value in list(globals().items()) if isinstance(value, Rule)}
if any(name != rule.code for name, rule in RULES.items()):
    raise RuntimeError("a rule must be bound to the name of its code")
BY_NAME: dict[str, Rule] = {rule.name: rule for rule in RULES.values()}
DEFAULT_SELECT: frozenset[str] = frozenset(rule.code for rule in RULES.values() if rule.default)


def expand(selectors: "list[str] | tuple[str, ...]") -> set[str]:
    """Codes matched by selectors: a full code, a prefix (``WSP2``, ``WSP``), a rule name, or ``ALL``."""
    codes: set[str] = set()
    for selector in selectors:
        selector = selector.strip()
        if not selector:
            continue
        if selector.upper() == "ALL":
            codes.update(RULES)
        elif selector in BY_NAME:
            codes.add(BY_NAME[selector].code)
        else:
            matched = {code for code in RULES if code.startswith(selector.upper())}
            if not matched:
                raise ValueError(f"unknown rule selector {selector!r}")
            codes.update(matched)
    return codes
