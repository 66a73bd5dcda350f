"""a_11: functions handed to a project helper that starts multiprocessing.Process workers (lcnn parmap).

Cases: local_def (def handle inside main(), dataset/wireframe.py, york.py, post.py), under_guard (def work
under the main guard, eval-sAP.py), module_fn (module-level function; parmap's lambda default
progress_bar stays in the parent)."""
import sys

from utils import parmap


def square(x):
    return x * x


def main(case):
    def handle(x):
        return x * x
    print("sum", sum(parmap(handle if case == "local_def" else square, range(6))))


if __name__ == "__main__":
    if sys.argv[1] == "under_guard":
        def work(x):
            return x * x
        print("sum", sum(parmap(work, range(6))))
    else:
        main(sys.argv[1])
