"""WaveRNN utils/__init__.py stand-in: a hyper-parameter pseudo-module filled by configure() at run time."""
from pathlib import Path
from importlib.util import spec_from_file_location, module_from_spec


class __HParams:
    def __init__(self):
        self._configured = False

    def __getattr__(self, item):
        if not self._configured:
            raise AttributeError("HParams not configured yet. Call self.configure()")
        return super().__getattr__(item)

    def configure(self, path):
        spec = spec_from_file_location("hparams", Path(path))
        m = module_from_spec(spec)
        spec.loader.exec_module(m)
        for name, value in m.__dict__.items():
            if not name.startswith("__"):
                setattr(self, name, value)
        self._configured = True


hparams = __HParams()
