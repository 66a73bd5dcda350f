"""Mimics deepvecfont refinement_mp.py: set_start_method('spawn') at import inside
try/except RuntimeError, mp.Process(target=<module-level function>) under the main guard.
Cases: try_except (as the repository: safe) | bare (twin without try/except, for contrast)."""
import sys
import torch.multiprocessing as mp
from torch.multiprocessing import set_start_method

CASE = sys.argv[1] if len(sys.argv) > 1 else "try_except"
if CASE == "try_except":
    try:
        set_start_method('spawn')
    except RuntimeError:
        pass
else:
    set_start_method('spawn')


def process_s1(process_id, chars_per_process, args):
    print("worker", process_id, chars_per_process, args["fontid"], flush=True)


if __name__ == "__main__":
    args = {"fontid": "17"}
    processes = [mp.Process(target=process_s1, args=[pid, 13, args]) for pid in range(2)]
    for p in processes:
        p.start()
    for p in processes:
        p.join()
    print("OK", CASE, [p.exitcode for p in processes])
