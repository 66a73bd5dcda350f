"""Module side of e_e3_07: like madewithml/data.py stratify_split, a local function handed to a
cloudpickle-based pool (Ray map_groups there, joblib loky here)."""
from joblib import Parallel, delayed


def stratify_split(values, test_size=0.4):
    def _add_split(chunk):
        k = int(len(chunk) * (1 - test_size))
        return [(v, "train" if i < k else "test") for i, v in enumerate(sorted(chunk))]
    return Parallel(n_jobs=2, backend="loky")(delayed(_add_split)(values[i::2]) for i in range(2))
