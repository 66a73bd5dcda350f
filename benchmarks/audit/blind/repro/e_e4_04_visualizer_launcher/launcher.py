"""Like chainerrl_visualizer/launcher.py: the agent and env go to two multiprocessing.Process
workers as arguments; a gym env gets a local render() function set as attribute first."""
from multiprocessing import Process, Queue


class GymLikeEnv(object):
    def render(self, mode="human"):
        return "frame-" + mode


def job_worker(agent, env, queue):
    queue.put(("worker", agent.act(1), env.render()))


def web_server(agent, env, queue):
    queue.put(("server", agent.act(2), env.render()))


def modify_gym_env_render(gym_env):
    old_render = gym_env.render

    def render():                                   # launcher.py:78 (WSP204 on the env)
        return old_render(mode="rgb_array")

    gym_env.render = render


def launch_visualizer(agent, env):
    if isinstance(env, GymLikeEnv):
        modify_gym_env_render(env)
    q = Queue()
    server_process = Process(target=web_server, args=(agent, env, q))
    worker_process = Process(target=job_worker, args=(agent, env, q))
    server_process.start()
    worker_process.start()
    print("RESULT", sorted([q.get(timeout=20), q.get(timeout=20)]), flush=True)
    server_process.join()
    worker_process.join()
