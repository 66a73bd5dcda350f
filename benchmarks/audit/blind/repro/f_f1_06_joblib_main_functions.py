"""python-machine-learning-book ch08 shape: tokenizer functions defined in __main__ (a
notebook cell / an unguarded script) are handed to GridSearchCV(n_jobs=-1), i.e. joblib's
default loky backend, which pickles with cloudpickle and does not re-run __main__.
Cases: loky_unguarded (module-level Parallel call, functions and a lambda from __main__:
safe), mp_pool_lambda (the same lambda through multiprocessing.Pool: fails under spawn:
the contrast)."""
import os
import sys
from joblib import Parallel, delayed

print("module body runs in", __name__, flush=True)


def tokenizer(text):
    return text.split()


case = sys.argv[1]
if case == "loky_unguarded":
    print(Parallel(n_jobs=2)(delayed(tokenizer)("a b c") for _ in range(4)))
    print(Parallel(n_jobs=2)(delayed(lambda t: t.upper())("x") for _ in range(2)))
    print("OK", case)
elif case == "mp_pool_lambda" and __name__ == "__main__":
    from multiprocessing import Pool
    with Pool(2) as p:
        print(p.map(lambda t: t.split(), ["a b", "c d"]))
    print("OK", case)
