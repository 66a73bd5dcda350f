"""Mimics urban_planning/agents/urban_planning_agent.py: setup_logger() (called from __init__) keeps a
SummaryWriter and logging.Logger objects with file handlers on the agent."""
import logging
import os
import tempfile
from .agent import Agent
from .writer import SummaryWriter


def create_logger(filename):
    logger = logging.getLogger(filename)
    logger.propagate = False
    logger.addHandler(logging.FileHandler(filename, mode="a"))
    return logger


class UrbanPlanningAgent(Agent):
    def __init__(self, num_threads, training=True):
        self.training = training
        self.setup_logger(num_threads)
        super().__init__(env=3, num_threads=num_threads)

    def setup_logger(self, num_threads):
        d = tempfile.mkdtemp()
        self.tb_logger = SummaryWriter(d) if self.training else None      # the hazard (urban_planning_agent.py:100)
        self.logger = create_logger(os.path.join(d, "log_train.txt"))     # Logger pickles by name: fine
        self.thread_loggers = [create_logger(os.path.join(d, f"log_{i}.txt")) for i in range(num_threads)]
