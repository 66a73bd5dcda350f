"""Shape (DEAP examples/ga/onemax_mp.py:40): creator.create("Individual", ...) runs inside main()
(called under the main guard), so the class exists as deap.creator.Individual only in the
parent. pool.map(evaluate, population) pickles Individual instances by reference; a spawned
worker re-imports deap.creator without it: AttributeError: Can't get attribute 'Individual'
on <module 'deap.creator'> (DEAP/deap#92). Under fork the worker inherits the class.
Cases: hazard (create inside main), safe (create at module level)."""
import sys
import multiprocessing
from fakedeap import creator

CASE = sys.argv[1]

if CASE == "safe":
    creator.create("Individual", list, fitness=None)


def evalOneMax(ind):
    return sum(ind),


def main():
    if CASE == "hazard":
        creator.create("Individual", list, fitness=None)
    pop = [creator.Individual([1] * 10) for _ in range(8)]
    with multiprocessing.Pool(processes=2) as pool:
        print("OK", pool.map(evalOneMax, pop))


if __name__ == "__main__":
    main()
