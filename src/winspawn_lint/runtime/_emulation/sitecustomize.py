"""Applies the start-method emulation in every interpreter that finds it on PYTHONPATH.

Loaded by ``site`` at start-up; see ``winspawn_lint.runtime.emulation``.  It must stay
cheap and must never fail an interpreter start, so it imports nothing heavy
and swallows nothing but the absence of the variable.

``winspawn_lint.runtime.emulation`` loads this same file (under another module name)
to apply the emulation inside an already running interpreter, e.g. the pytest
process when ``--mp-start-method`` is given; hence :func:`install` and
:func:`uninstall` are idempotent and reversible.
"""

import os
import sys

# Modules with a ``<name>.context`` patched when first imported: `multiprocess`
# is the dill-based fork of multiprocessing that `datasets` uses.
LAZY_MODULES = ("multiprocess",)

# module name -> the default context it had before we patched it
_saved = {}


def _patch_context(context, module_name, method):
    default = context._default_context
    _saved.setdefault(module_name, default._default_context)
    # Only the default changes: a context a script already chose stays chosen,
    # and set_start_method() still works once, as on Windows.
    default._default_context = context._concrete_contexts[method]


class _LazyContextPatch:
    """A meta-path finder that patches ``<module>.context`` right after it executes."""

    _winspawn_lint = True

    def __init__(self, method):
        self.method = method

    def find_spec(self, fullname, path, target=None):
        module_name = fullname[: -len(".context")] if fullname.endswith(".context") else None
        if module_name not in LAZY_MODULES:
            return None
        import importlib.machinery

        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        original_exec = spec.loader.exec_module
        method = self.method

        def exec_module(module):
            original_exec(module)
            _patch_context(module, module_name, method)

        spec.loader.exec_module = exec_module
        return spec

    # Python < 3.10 compatibility for importlib.invalidate_caches()
    def invalidate_caches(self):
        pass


def _remove_finders():
    sys.meta_path[:] = [f for f in sys.meta_path if not getattr(f, "_winspawn_lint", False)]


def install(method):
    """Make *method* the default start method of multiprocessing, and of `multiprocess` once imported."""
    import multiprocessing.context

    _patch_context(multiprocessing.context, "multiprocessing", method)
    _remove_finders()
    pending = False
    for name in LAZY_MODULES:
        context = sys.modules.get(name + ".context")
        if context is not None:
            _patch_context(context, name, method)
        else:
            pending = True
    if pending:
        sys.meta_path.insert(0, _LazyContextPatch(method))


def uninstall():
    """Undo :func:`install`: restore the saved default contexts and drop the import hook."""
    _remove_finders()
    for name, original in list(_saved.items()):
        context = sys.modules.get(name + ".context")
        if context is not None:
            context._default_context._default_context = original
        del _saved[name]


if __name__ == "sitecustomize":
    _method = os.environ.get("WINSPAWN_START_METHOD")
    if _method:
        install(_method)
