"""Shape (DRL-urban-planning): the training script builds an agent that keeps a SummaryWriter (lock + thread)
from __init__; a library base class starts Process(target=self.sample_worker) for num_threads-1 workers, so the
agent is pickled. Cases: hazard_writer (num_threads=4, training), safe_logger_only (training=False: only
logging.Logger objects with FileHandlers are kept, they pickle by name), safe_one_thread (num_threads=1: no
process is started, as in eval.py/train_ga.py)."""
import os
import sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from lib.urban_agent import UrbanPlanningAgent


def main(case):
    if case == "hazard_writer":
        agent = UrbanPlanningAgent(num_threads=4, training=True)
    elif case == "safe_logger_only":
        agent = UrbanPlanningAgent(num_threads=4, training=False)
    elif case == "safe_one_thread":
        agent = UrbanPlanningAgent(num_threads=1, training=True)
    else:
        raise SystemExit("unknown case")
    print(len(agent.sample(2)))
    print("OK", case)


if __name__ == "__main__":
    main(sys.argv[1])
