"""Shape: a library helper starts mp.Process with a target defined inside it (chainerrl run_async), and the
training helper passes a run_func defined inside it as a Process argument.
Cases: hazard_local_target (as shipped), hazard_local_run_func (target fixed, run_func still local),
safe (module-level target and a picklable callable object)."""
import sys
import os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import asynclib


def make_env(process_idx, test):
    return ("env", process_idx, test)


def main(case):
    if case == "hazard_local_target":
        print(asynclib.train_agent_async(2, make_env, local_target=True, local_run_func=True))
    elif case == "hazard_local_run_func":
        print(asynclib.train_agent_async(2, make_env, local_target=False, local_run_func=True))
    elif case == "safe":
        print(asynclib.train_agent_async(2, make_env, local_target=False, local_run_func=False))
    print("OK", case)


if __name__ == "__main__":
    main(sys.argv[1])
