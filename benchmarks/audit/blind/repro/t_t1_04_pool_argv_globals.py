"""Shape: CDA dataaug.py -- module-level globals read from sys.argv at import, Pool() started in
a function called from the main guard, module-level worker reading those globals.
Cases: safe_argv_globals (spawn restores sys.argv in the child, the globals are rebuilt),
hazard_guard_global (twin: the global is only assigned under the guard -> NameError in spawn)."""
import sys
from multiprocessing import Pool

base_folder = sys.argv[2] if len(sys.argv) > 2 else None


def save_aug(x):
    return "%s/%s/%d" % (base_folder, reg_only_in_parent if CASE == "hazard_guard_global" else "r", x)


CASE = sys.argv[1]


def aug():
    with Pool(2) as p:
        return p.map(save_aug, range(4))


if __name__ == "__main__":
    if CASE == "hazard_guard_global":
        reg_only_in_parent = "Inn"
    print("OK", CASE, aug())
