"""r09: datasets .map(num_proc) with lambdas / closures (WSP901, opt-in portability) and at import time.

Cases: lambda = ds.map(lambda, num_proc=2) in main(); closure = a nested def capturing a local;
guard_level_def = function defined in the guard body (nanoGPT prepare.py shape); unguarded = the
map(num_proc=2) call at module level (WSP101: spawned workers re-import the script);
unguarded_num_proc1 = the same with num_proc=1 (peft_adalora_seq2seq shape: datasets still starts a Pool(1)).
"""
import sys

from datasets import Dataset

CASE = sys.argv[1]


def main():
    ds = Dataset.from_dict({"x": list(range(8))})
    scale = 3
    if CASE == "lambda":
        out = ds.map(lambda row: {"y": row["x"] * scale}, num_proc=2)
    else:
        def scaled(row):
            return {"y": row["x"] * scale}
        out = ds.map(scaled, num_proc=2)
    print("sum", sum(out["y"]))


if CASE in ("unguarded", "unguarded_num_proc1"):
    ds = Dataset.from_dict({"x": list(range(8))})
    out = ds.map(lambda row: {"y": row["x"] + 1}, num_proc=2 if CASE == "unguarded" else 1)
    print("sum", sum(out["y"]))

if __name__ == "__main__":
    if CASE == "guard_level_def":
        ds = Dataset.from_dict({"x": list(range(8))})

        def process(row):
            return {"y": row["x"] + 1}

        out = ds.map(process, num_proc=2)
        print("sum", sum(out["y"]))
    elif CASE in ("lambda", "closure"):
        main()
