"""Shape (getcontacts, VariantDetective, MIDAS): an open text file handed to a worker.
cases:
  process_arg  - output_fd = open(path, "w"); Process(target=consumer, args=(q, output_fd)) (WSP302)
  pool_dict    - args = {"log": open(...)}; pool.apply_async(f, args=[args, ...]) (WSP302; Pool pickles task
                 arguments under fork too)
  safe_path    - the path is passed, the worker opens it
  safe_parent  - the file is opened and written in the parent only (serial branch)
  safe_obj     - an object built with output=sys.stderr that does not keep it (FragmentLengths) goes to the worker"""
import multiprocessing as mp, os, sys, tempfile


def consumer(fd_or_path, lines):
    if isinstance(fd_or_path, str):
        with open(fd_or_path, "w") as f:
            f.write("\n".join(lines))
    else:
        fd_or_path.write("\n".join(lines))


class FragmentLengths:
    def __init__(self, mean, stdev, output=sys.stderr):
        self.mean = mean
        self.stdev = stdev


def gen(fl, path):
    with open(path, "w") as f:
        f.write(str(fl.mean))


def pile(args, sid):
    return sid + len(args["outdir"])


if __name__ == "__main__":
    case = sys.argv[1]
    d = tempfile.mkdtemp(); path = os.path.join(d, "out.tsv")
    if case == "process_arg":
        fd = open(path, "w")
        p = mp.Process(target=consumer, args=(fd, ["a", "b"])); p.start(); p.join(); fd.close()
        print("exit", p.exitcode)
    elif case == "pool_dict":
        args = {"outdir": d, "log": open(os.path.join(d, "log.txt"), "w")}
        with mp.Pool(1) as pool:
            print(pool.apply_async(pile, args=[args, 1]).get(timeout=30))
    elif case == "safe_path":
        p = mp.Process(target=consumer, args=(path, ["a", "b"])); p.start(); p.join()
        print("exit", p.exitcode)
    elif case == "safe_parent":
        fd = open(path, "w"); consumer(fd, ["a"]); fd.close()
    elif case == "safe_obj":
        p = mp.Process(target=gen, args=(FragmentLengths(5, 1, sys.stderr), path)); p.start(); p.join()
        print("exit", p.exitcode)
    print("OK", case)
