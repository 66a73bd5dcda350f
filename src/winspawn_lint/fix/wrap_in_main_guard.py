from ._base import WinspawnCodemod


class WrapInMainGuard(WinspawnCodemod):
    CODES = frozenset({"WSP101"})

    def transform_module_impl(self, tree):
        return tree
