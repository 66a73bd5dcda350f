"""Cases:
  hazard      config.task_fn = lambda inside dqn_pixel(); async_actor=True -> DQNActor(mp.Process).start() pickles config
  safe_sync   same lambdas but async_actor=False: the actor never starts a process (dqn_feature)
  safe_replay ReplayWrapper process keeps only a module-level class and a dict (async_replay=True)
"""
import sys

from agent import Config, DQNActor, ReplayWrapper, UniformReplay


def dqn(async_actor):
    config = Config()
    config.task_fn = lambda: ("task", 1)
    config.async_actor = async_actor
    actor = DQNActor(config)
    print("actor ->", actor.result())


def replay_only():
    r = ReplayWrapper(UniformReplay, dict(memory_size=10), use_async=True)
    print("replay ->", r.size())


if __name__ == "__main__":
    case = sys.argv[1]
    if case == "hazard":
        dqn(True)
    elif case == "safe_sync":
        dqn(False)
    elif case == "safe_replay":
        replay_only()
    else:
        raise SystemExit("unknown case")
