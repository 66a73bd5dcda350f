"""Shape: recommender sampler processes (openrec tf1).
cases:
  local_batch     - local generator function on a Process subclass -> Can't pickle local object (guarded script)
  module_batch    - safe twin: module-level generator + multiprocessing Queue passed to the Process
  unguarded_train - example script with no main guard starting the sampler processes at import
                    (module-level generator, so only the missing guard fails)
"""
import sys
from sampler import RandomPairwiseSampler, ModuleSampler

case = sys.argv[1] if len(sys.argv) > 1 else "local_batch"
data = [1, 2, 3, 4]


def train(s):
    return [s.next_batch() for _ in range(3)]


if case == "unguarded_train":
    print("result", train(ModuleSampler(data)))

if __name__ == "__main__":
    if case == "local_batch":
        print("result", train(RandomPairwiseSampler(data, 2)))
    elif case == "module_batch":
        print("result", train(ModuleSampler(data)))
