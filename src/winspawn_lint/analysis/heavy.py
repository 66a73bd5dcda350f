"""Heavy work: the calls that cost a spawned worker seconds or gigabytes when its import repeats them.

Loading a checkpoint or a pretrained model, reading a dataset into memory, moving a model to the GPU: done at
import time in a module that spawned workers import, each worker does it again (WSP103).  What counts is data in
``spawn_apis`` (``HEAVY_CALLS``, ``HEAVY_METHODS``, ``HEAVY_WITH_KEYWORD``, and ``HEAVY_IN_LOOP`` for a reader
of one file called in a loop); this module reads a call against it.
"""

from __future__ import annotations

import ast
from typing import Optional

from ..spawn_apis import GIVEN, HEAVY_IN_LOOP, HEAVY_METHODS, heavy_call
from .index import ModuleIndex, Scope, passes_true
from .names import Resolver

_CUDA_TEXT = ("cuda", "gpu")
#: Wrappers whose result, called, calls the function they wrap with the arguments it is given
DELAYING = frozenset({"joblib.delayed", "sklearn.utils.parallel.delayed", "sklearn.utils.fixes.delayed"})


def heavy_work(call: ast.Call, resolver: Resolver, scope: Scope, index: Optional[ModuleIndex] = None,
               owner: Optional[ast.AST] = None) -> Optional[str]:
    """A description of the heavy work this call does (for a message), or None.  *index* and *owner* (the def
    whose code makes the call, or the module's tree): where a reader of one file counts when called in a loop."""
    loading = heavy_loading(call, resolver, scope, index, owner)
    if loading is not None:
        return loading
    if isinstance(call.func, ast.Attribute):
        method = call.func.attr
        if method == "cuda" and not call.keywords and len(call.args) <= 1:
            return "`.cuda()` (moving to the GPU)"
        if method == "to" and call.args and _mentions_cuda(call.args[0]):
            return "`.to(\"cuda\")` (moving to the GPU)"
    return None


def heavy_loading(call: ast.Call, resolver: Resolver, scope: Scope, index: Optional[ModuleIndex] = None,
                  owner: Optional[ast.AST] = None) -> Optional[str]:
    """Like :func:`heavy_work`, for loading only (checkpoints, models, data, joining a process group), not for
    moving to the GPU: what a call into the project is judged by, as a model's ``__init__`` moving its own small
    buffers to the GPU is not the cost WSP103 is about."""
    name = _loaded_name(call, resolver, scope)
    why = heavy_call(name, _constant_keywords(call))
    if why is None and name in HEAVY_IN_LOOP and index is not None and owner is not None \
            and id(call) in index.calls_in_loops(owner):
        why = " in a loop"
    if why is not None:
        return f"`{_short(name)}(...)`{why}"
    if isinstance(call.func, ast.Attribute) and call.func.attr in HEAVY_METHODS:
        return f"`{dotted(call.func) or '.' + call.func.attr}(...)`"
    if name is None and passes_true(call, "pretrained") and not _of_an_import(call.func, resolver, scope):
        # (a model class chosen at run time, `opts.base(pretrained=True)` or `models.__dict__[arch](pretrained=True)`:
        # every model zoo that takes the keyword -- torchvision's, timm's, the copies in research code -- reads,
        # the first time downloads, the weights; a function of an imported module, `resnet.resnet101(pretrained=True)`
        # of the project's `networks.deeplab_resnet`, is judged by its body)
        return f"`{_written(call.func)}(pretrained=True)` (its pretrained weights)"
    return None


def heavy_by_default(call: ast.Call, resolver: Resolver, scope: Scope, defaults: dict[str, object]
                     ) -> Optional[tuple[str, tuple[str, ...]]]:
    """A call that loads only with the defaults of the parameters it is given: in ``def __init__(self,
    pretrained=True)``, ``models.resnet101(pretrained=pretrained)`` (crowd-count's ``Res101``).  What it loads, and
    those parameters (where the function is called without them, or with the same constants, it loads); None if
    it does not, or loads whatever they are (:func:`heavy_loading` says so)."""
    given = {k.arg: k.value.id for k in call.keywords if isinstance(k.value, ast.Name) and k.value.id in defaults}
    if not given:
        return None
    name = _loaded_name(call, resolver, scope)
    why = heavy_call(name, _constant_keywords(call, defaults))
    return (f"`{_short(name)}(...)`{why}", tuple(sorted(set(given.values())))) if why is not None else None


def _loaded_name(call: ast.Call, resolver: Resolver, scope: Scope) -> Optional[str]:
    name = resolver.qualname(call.func, scope)
    if name is None and isinstance(call.func, ast.Call) and len(call.func.args) == 1 and \
            resolver.qualname(call.func.func, scope) in DELAYING:
        # (`delayed(np.load)(path)` given to `Parallel(...)`: the call is np.load's, run by joblib's workers or
        # its own process, and the parent waits for its result)
        name = resolver.qualname(call.func.args[0], scope)
    return name


def _written(expr: ast.expr) -> str:
    """*expr* as written, cut to a length a message can hold."""
    text = ast.unparse(expr)
    return text if len(text) <= 40 else text[:37] + "..."


def _of_an_import(func: ast.expr, resolver: Resolver, scope: Scope) -> bool:
    """Whether *func* is a dotted name whose first part an import binds (``resnet.resnet101``)."""
    while isinstance(func, ast.Attribute):
        func = func.value
    if not isinstance(func, ast.Name):
        return False
    binding = resolver.lookup(func.id, scope, getattr(func, "lineno", None))
    return binding is not None and binding.kind == "import"


def dotted(expr: ast.AST) -> Optional[str]:
    """The dotted name written at *expr* (``torch.utils.data.DataLoader``), or None for anything else."""
    parts = []
    while isinstance(expr, ast.Attribute):
        parts.append(expr.attr)
        expr = expr.value
    if isinstance(expr, ast.Name):
        parts.append(expr.id)
        return ".".join(reversed(parts))
    return None


def _constant_keywords(call: ast.Call, names: Optional[dict[str, object]] = None) -> list[tuple[Optional[str], object]]:
    """(keyword, its constant, or :data:`GIVEN`) of a call; a keyword given one of *names* has that name's value."""
    names = names or {}
    return [(k.arg, k.value.value if isinstance(k.value, ast.Constant) else
             names[k.value.id] if isinstance(k.value, ast.Name) and k.value.id in names else GIVEN)
            for k in call.keywords]


def _mentions_cuda(expr: ast.AST) -> bool:
    if isinstance(expr, ast.Constant) and isinstance(expr.value, str):
        return expr.value.split(":")[0] in _CUDA_TEXT
    if isinstance(expr, ast.Call) and expr.args:  # torch.device("cuda")
        return isinstance(expr.func, (ast.Attribute, ast.Name)) and _mentions_cuda(expr.args[0])
    return False


def _short(name: str) -> str:
    for long, short in (("numpy.", "np."), ("pandas.", "pd.")):
        if name.startswith(long):
            return short + name[len(long):]
    return name
