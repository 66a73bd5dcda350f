def compose(*fns):
    def _fn(x):                 # local function returned (diffuser/datasets/preprocessing.py:15)
        for fn in fns:
            x = fn(x)
        return x
    return _fn


class Compose:                  # picklable twin
    def __init__(self, *fns):
        self.fns = fns

    def __call__(self, x):
        for fn in self.fns:
            x = fn(x)
        return x


def get_preprocess_fn(fn_names, picklable=False):
    fns = [globals()[n] for n in fn_names]
    return Compose(*fns) if picklable else compose(*fns)
