"""c_c2_05: pytorch-maml-rl train.py shape (guarded): MultiTaskSampler starts SamplerWorker processes
(an mp.Process subclass) whose SyncVectorEnv keeps env factories made by make_env().

Cases:
  local_env_fn  make_env returns the local def _make_env, stored on the Process object   (WSP202)
  partial_env   make_env returns functools.partial(module-level fn, name): safe (the mp.Queue and
                mp.Lock kept on the Process pickle fine at start)
"""
import sys
from maml.sampler import MultiTaskSampler

if __name__ == "__main__":
    s = MultiTaskSampler("2DNavigation-v0", batch_size=3, num_workers=2, safe=sys.argv[1] == "partial_env")
    print("collected", s.collect())
