"""Shape of transfuser tools/dataset/utils.py: a simulator client's map object
(carla.Map, a Boost.Python instance whose pickling is not enabled) is passed as an
argument to multiprocessing.Process (WSP302).
Cases: map_arg (hazard), name_arg (safe twin: pass the town name, child rebuilds the map)."""
import multiprocessing
import sys
import threading


class SimMap:
    """Stand-in for carla.Map: holds a native handle that cannot be pickled."""
    def __init__(self, town):
        self.town = town
        self._native = threading.Lock()  # unpicklable like a Boost.Python instance

    def waypoints(self):
        return len(self.town)


def process_route(world_map, route, return_dict):
    if isinstance(world_map, str):
        world_map = SimMap(world_map)
    return_dict[route] = world_map.waypoints()


def main(case):
    manager = multiprocessing.Manager()
    return_dict = manager.dict()
    jobs = []
    for route in ["r0", "r1"]:
        world_map = SimMap("Town01")
        arg = world_map if case == "map_arg" else world_map.town
        p = multiprocessing.Process(target=process_route, args=(arg, route, return_dict))
        jobs.append(p)
        p.start()
    for p in jobs:
        p.join()
    print("results", dict(return_dict))
    print("OK")


if __name__ == "__main__":
    main(sys.argv[1])
