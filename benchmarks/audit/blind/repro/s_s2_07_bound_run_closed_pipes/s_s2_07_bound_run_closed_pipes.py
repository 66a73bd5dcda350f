"""Shape (Super-mario-bros-PPO-pytorch): Process(target=self.run) pickles an object holding all pipes and native
emulator envs; the parent closes each worker-side pipe after start(). Cases: hazard_pipes (8 envs, pipes only:
the second start() pickles a closed Connection), hazard_native_env (1 env holding a ctypes pointer),
safe_module_worker (module-level worker gets its own connection and an env factory)."""
import os
import sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import envs


def main(case):
    if case == "hazard_pipes":
        e = envs.MultipleEnvironments(8)
    elif case == "hazard_native_env":
        e = envs.MultipleEnvironments(1, with_native_env=True)
    elif case == "safe_module_worker":
        e = envs.SafeMultipleEnvironments(8)
    else:
        raise SystemExit("unknown case")
    for c in e.agent_conns:
        c.send(("step", 1))
    print([c.recv() for c in e.agent_conns])
    for c in e.agent_conns:
        c.send(("close", None))
    print("OK", case)


if __name__ == "__main__":
    main(sys.argv[1])
