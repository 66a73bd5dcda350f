"""o4 shape 06 (sentiment_from_scratch_ven config.py:4, dataset.py:5): the guarded train.py imports
config, whose module level loads the tokenizer; each of the DataLoader(num_workers=4) workers
re-imports train.py (as __mp_main__) and therefore config, loading the tokenizer again.
Cases: heavy (hazard: 'LOAD tokenizer' printed once per worker too), lazy (safe twin: loaded in run()).
The dataset class itself is module-level in dataset.py and pickles by reference (safe row)."""
from torch.utils.data import DataLoader

import config
from dataset import GPReviewDataset


def run():
    tok = config.get_tokenizer()
    ds = GPReviewDataset(["good movie", "bad plot", "good", "bad"], tok)
    n = sum(1 for _ in DataLoader(ds, batch_size=config.BATCH_SIZE, num_workers=4))
    print("OK", config.CASE, n, "batches")


if __name__ == "__main__":
    run()
