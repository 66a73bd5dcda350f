# Shape: Applio rvc/train/extract/extract.py:25 calls mp.set_start_method("spawn", force=True) at
# import time, then (under the main guard) ProcessPoolExecutor.submit(module-level function).
# Each spawned worker re-imports the script as __mp_main__ and re-runs the call: with force=True it
# does not raise. Cases: force_at_import (safe, as labelled), noforce_at_import (contrast: without
# force the re-run raises "context has already been set" in the worker under spawn).
import concurrent.futures
import multiprocessing as mp
import sys

CASE = sys.argv[1] if len(sys.argv) > 1 else "force_at_import"
if CASE == "force_at_import":
    mp.set_start_method("spawn", force=True)
else:
    mp.set_start_method("spawn")


def process_files(files, device):
    return [f + "@" + device for f in files]


if __name__ == "__main__":
    devices = ["cpu", "cpu"]
    files = ["a.wav", "b.wav", "c.wav"]
    with concurrent.futures.ProcessPoolExecutor(max_workers=len(devices)) as ex:
        tasks = [ex.submit(process_files, files[i::len(devices)], devices[i]) for i in range(len(devices))]
        print([t.result() for t in tasks])
    print("OK", CASE)
