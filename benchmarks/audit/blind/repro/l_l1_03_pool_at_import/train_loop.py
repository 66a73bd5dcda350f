# mimics TransformerVAE variants/transformer/train.py: the Pool is started from inside a
# module-level `for epoch` loop (evaluation of generated molecules).
# cases: loop_unguarded (hazard WSP101), loop_guarded (safe twin)
import sys
from utils import parallel_f
case = sys.argv[1] if len(sys.argv) > 1 else "loop_unguarded"
def get_valid(smi):
    return smi if smi else None
def run_epochs():
    for epoch in range(2):
        valid = parallel_f(get_valid, ["CCO", "", "N#N"])
    print("OK", valid)
if case == "loop_unguarded":
    for epoch in range(2):
        valid = parallel_f(get_valid, ["CCO", "", "N#N"])
    print("OK", valid)
elif __name__ == "__main__":
    run_epochs()
