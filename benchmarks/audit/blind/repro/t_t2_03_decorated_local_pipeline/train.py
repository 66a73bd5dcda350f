# mimics recipes/*/train.py dataio_prep() (local @takes pipelines) and WSJ0Mix dynamic_mixing.py (lambda worker_init_fn)
import sys
import numpy as np
from torch.utils.data import DataLoader
import pipeline as sb


def audio_fn(wav):  # safe twin: module-level function, wrapped without rebinding its name
    return wav * 2


def dataio_prep(case):
    ds = sb.DynamicItemDataset(list(range(6)))
    if case in ("local_pipeline",):
        @sb.takes("wav")
        def audio_pipeline(wav):
            return wav * 2
        ds.add_dynamic_item(audio_pipeline)
    else:
        ds.add_dynamic_item(sb.DynamicItem("wav", audio_fn))
    return ds


def main(case):
    ds = dataio_prep(case)
    kw = {}
    if case == "lambda_worker_init":
        kw["worker_init_fn"] = lambda x: np.random.seed(x)
    loader = DataLoader(ds, batch_size=2, num_workers=3, **kw)
    for b in loader:
        pass
    print("OK", case)


if __name__ == "__main__":
    main(sys.argv[1])
