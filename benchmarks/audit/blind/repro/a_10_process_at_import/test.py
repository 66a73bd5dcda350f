"""a_10: a script that starts helper processes at import time through another module
(img2poem test.py: `extract_feature = nn_process.create(...)` at module level).

Cases: unguarded (create() runs at import: the spawned child re-imports this script and tries to start
its own process while bootstrapping), guarded (the same calls under the guard: Process(target=module-level
function, args=(Pipe end, str)) pickles fine)."""
import sys

import nn_process

CASE = sys.argv[1]

if CASE == "unguarded" or __name__ == "__main__":
    extract_feature = nn_process.create("extract_feature")
    generate_poem = nn_process.create("generate_poem")
    print("sum", generate_poem(extract_feature(3)))
