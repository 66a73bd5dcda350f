"""g3 shape 05: local functions handed (through functools.partial) to ProcessPoolExecutor.map
(python-tutorial tutorial/tests/test_14_threads.py reference_exercise1).
cases:
  local_fn    count_words defined inside reference_exercise1 -> executor.map        (hazard, WSP202)
  module_fn   the same helpers at module level                                     (safe)
"""
import functools, os, sys, tempfile
from collections import Counter
from concurrent.futures import ProcessPoolExecutor

def read_segment(file, start, end):
    with open(file) as f:
        f.seek(start)
        return f.read(end - start)

def count_words_module(file, size, n_processes, segment_index):
    seg = size // n_processes
    rem = size % n_processes
    start = segment_index * seg + min(segment_index, rem)
    end = start + seg + (1 if segment_index < rem else 0)
    return Counter(read_segment(file, start, end).strip())

def reference_exercise1(input_file, size, n_processes, local):
    def count_words(file, size, n_processes, segment_index):
        seg = size // n_processes
        rem = size % n_processes
        start = segment_index * seg + min(segment_index, rem)
        end = start + seg + (1 if segment_index < rem else 0)
        return Counter(read_segment(file, start, end).strip())
    fn = count_words if local else count_words_module
    with ProcessPoolExecutor(n_processes) as executor:
        result = executor.map(functools.partial(fn, input_file, size, n_processes), range(n_processes))
    return dict(functools.reduce(lambda x, y: x + y, result, Counter()))

if __name__ == "__main__":
    case = sys.argv[1]
    path = os.path.join(tempfile.mkdtemp(), "words.txt")
    with open(path, "w") as f:
        f.write("abcabcabcd" * 10)
    print("OK", reference_exercise1(path, 100, 4, local=(case == "local_fn")))
