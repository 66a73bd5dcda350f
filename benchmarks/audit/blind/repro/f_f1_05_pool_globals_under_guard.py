"""zhrtvc mellotron/preprocess.py shape: module globals (text_mel_loader, output_dir) are
None at import and assigned under the main guard; the Pool worker function process_one
reads them.  Under spawn the worker's module has None -> AttributeError.
Cases: hazard (Pool(n)), n0 (n_processes=0: serial in the parent, safe),
safe (values passed with functools.partial)."""
import sys
import tempfile
from functools import partial
from multiprocessing.pool import Pool
from pathlib import Path

text_mel_loader = None
output_dir = None


def process_one(index, skip_existing=False):
    global text_mel_loader
    if text_mel_loader is None:
        text_mel_loader = ["x"] * 4       # rebuilt from metadata_path (None in a spawned worker)
    onedir = output_dir.joinpath(f"{index:06d}")
    return str(onedir)


def process_one_args(index, out, loader):
    return str(out.joinpath(f"{index:06d}")) + loader[index]


def process_many(n_processes, case):
    ids = list(range(len(text_mel_loader)))
    if n_processes == 0:
        return [process_one(i) for i in ids]
    if case == "safe":
        func = partial(process_one_args, out=output_dir, loader=text_mel_loader)
    else:
        func = partial(process_one, skip_existing=True)
    with Pool(n_processes) as p:
        return list(p.imap(func, ids))


if __name__ == "__main__":
    case = sys.argv[1]
    text_mel_loader = ["a", "b", "c", "d"]
    output_dir = Path(tempfile.gettempdir())
    print(process_many(0 if case == "n0" else 2, case))
    print("OK", case)
