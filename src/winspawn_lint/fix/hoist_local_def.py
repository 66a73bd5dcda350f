from ._base import WinspawnCodemod


class HoistLocalDef(WinspawnCodemod):
    CODES = frozenset({"WSP202"})

    def transform_module_impl(self, tree):
        return tree
