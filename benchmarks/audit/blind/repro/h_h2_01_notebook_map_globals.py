"""Shape: a notebook defines tokenize_function/group_texts that read notebook globals (tokenizer, block_size)
and calls datasets.map(..., num_proc=4). datasets ships the function with dill (multiprocess); in a spawned worker
the notebook's __main__ globals are absent -> NameError. Safe twin: pass the value via fn_kwargs.
The notebook kernel is mimicked by running the cell code with `python -c` (a __main__ without a file, like ipykernel).
Cases: hazard (tokenizer global) | hazard_block (block_size global) | safe"""
import multiprocessing, subprocess, sys

CELLS = {
"hazard": '''
import multiprocess, datasets
multiprocess.set_start_method(METHOD, force=True)
block_size = 4
def tokenizer(texts): return {"input_ids": [[ord(c) for c in t] for t in texts]}
def tokenize_function(examples):
    return tokenizer(examples["text"])
def group_texts(examples):
    ids = sum(examples["input_ids"], [])
    n = (len(ids) // block_size) * block_size
    return {"input_ids": [ids[i:i+block_size] for i in range(0, n, block_size)]}
ds = datasets.Dataset.from_dict({"text": ["hello world", "spawn start", "abc", "defgh"] * 4})
tok = ds.map(tokenize_function, batched=True, num_proc=4, remove_columns=["text"])
lm = tok.map(group_texts, batched=True, num_proc=4)
print("OK", len(lm))
''',
"hazard_block": '''
import multiprocess, datasets
multiprocess.set_start_method(METHOD, force=True)
block_size = 4
def tokenize_function(examples):
    return {"input_ids": [[ord(c) for c in t] for t in examples["text"]]}
def group_texts(examples):
    ids = sum(examples["input_ids"], [])
    n = (len(ids) // block_size) * block_size
    return {"input_ids": [ids[i:i+block_size] for i in range(0, n, block_size)]}
ds = datasets.Dataset.from_dict({"text": ["hello world", "spawn start", "abc", "defgh"] * 4})
tok = ds.map(tokenize_function, batched=True, num_proc=4, remove_columns=["text"])
lm = tok.map(group_texts, batched=True, num_proc=4)
print("OK", len(lm))
''',
"safe": '''
import multiprocess, datasets
multiprocess.set_start_method(METHOD, force=True)
def tokenize_function(examples):
    return {"input_ids": [[ord(c) for c in t] for t in examples["text"]]}
def group_texts(examples, block_size):
    ids = sum(examples["input_ids"], [])
    n = (len(ids) // block_size) * block_size
    return {"input_ids": [ids[i:i+block_size] for i in range(0, n, block_size)]}
ds = datasets.Dataset.from_dict({"text": ["hello world", "spawn start", "abc", "defgh"] * 4})
tok = ds.map(tokenize_function, batched=True, num_proc=4, remove_columns=["text"])
lm = tok.map(group_texts, batched=True, num_proc=4, fn_kwargs={"block_size": 4})
print("OK", len(lm))
''',
}

if __name__ == "__main__":
    case = sys.argv[1]
    method = multiprocessing.get_start_method()
    code = CELLS[case].replace("METHOD", repr(method))
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    out = (r.stdout + r.stderr).strip().splitlines()
    err = [l for l in out if "Error" in l]
    print(f"start method {method}: rc={r.returncode}", out[-1] if r.returncode == 0 else (err[-1] if err else out[-1]))
    sys.exit(r.returncode)
