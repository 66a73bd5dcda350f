"""c_c2_02: data-preparation scripts that start a process pool (WaveRNN preprocess.py and notebook NB4a,
SparseConvNet ScanNet/prepare_data.py, diffwave preprocess.py).

Cases:
  pool_hazard     module-level Pool(processes=N).imap_unordered(process_wav, files), no guard   (WSP101)
  pool_map_hazard module-level p = mp.Pool(cpu_count()); p.map(f, files), no guard             (WSP101)
  ppe_guarded     ProcessPoolExecutor().map(transform, files) inside main() called under the guard,
                  transform a module-level function (diffwave): safe
  pool_guarded    the WaveRNN shape moved under the guard: safe
  mp_spawn_guarded torch.multiprocessing.spawn(train_distributed, nprocs=2) inside main() under the guard,
                  train_distributed a module-level function (diffwave __main__.py): safe
"""
import os
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import Pool, cpu_count

CASE = sys.argv[1]
OUT = tempfile.mkdtemp(prefix="c_c2_02_")
files = [f"clip_{i}.wav" for i in range(6)]     # get_files(path, extension) stand-in


def process_wav(path):
    return path[:-4], len(path)


def transform(filename):
    return filename.upper()


def train_distributed(replica_id, replica_count, params):
    assert params["batch_size"] == 8 and replica_count == 2


def main():
    with ProcessPoolExecutor(max_workers=2) as executor:
        print(len(list(executor.map(transform, files))))


if CASE == "pool_hazard":
    n_workers = max(1, min(2, cpu_count() - 1))
    pool = Pool(processes=n_workers)
    dataset = []
    for i, (item_id, length) in enumerate(pool.imap_unordered(process_wav, files), 1):
        dataset += [(item_id, length)]
    print(len(dataset))
elif CASE == "pool_map_hazard":
    p = Pool(processes=2)
    p.map(process_wav, files)
    p.close()
    p.join()
    print("done")
elif CASE == "ppe_guarded":
    if __name__ == "__main__":
        main()
elif CASE == "pool_guarded":
    if __name__ == "__main__":
        with Pool(processes=2) as pool:
            print(len(list(pool.imap_unordered(process_wav, files))))
elif CASE == "mp_spawn_guarded":
    if __name__ == "__main__":
        from torch.multiprocessing import spawn
        spawn(train_distributed, args=(2, {"batch_size": 8}), nprocs=2, join=True)
        print("spawned ok")
else:
    raise SystemExit("unknown case " + CASE)
