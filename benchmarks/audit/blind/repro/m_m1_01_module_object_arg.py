"""Shape (CogitoNTNU/AlphaZero Multiprocessing.py:38): a config *module* object is passed
as an argument to multiprocessing.Process. Under spawn the Process object is pickled:
TypeError: cannot pickle 'module' object. Under fork nothing is pickled.
Cases: hazard (pass the module), safe (pass the module's name; worker imports it)."""
import sys
import importlib
import json
from multiprocessing import Process, Manager

import json as Config  # stands in for `from FourInARow import Config` (a module)


def generate_data(res_dict, config, i):
    if isinstance(config, str):
        config = importlib.import_module(config)
    res_dict[i] = config.__name__


def run(case):
    res = Manager().dict()
    cfg = Config if case == "hazard" else Config.__name__
    ws = [Process(target=generate_data, args=(res, cfg, i)) for i in range(2)]
    for w in ws:
        w.daemon = True
        w.start()
    for w in ws:
        w.join()
    print("OK", dict(res))


if __name__ == "__main__":
    run(sys.argv[1])
