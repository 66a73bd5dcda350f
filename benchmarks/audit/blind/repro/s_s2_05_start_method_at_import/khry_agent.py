"""Mimics khrylib/rl/agents/agent.py lines 9-11: set_start_method('fork') at import on every non-Linux OS."""
import os
import platform
SYSTEM = os.environ.get("EMULATED_SYSTEM", platform.system())
if SYSTEM != "Linux":
    from multiprocessing import set_start_method
    set_start_method("fork")


class Agent:
    pass
