"""Shape of Elastica-RL-control Case*/policy_training_script.py: a module-level Pool with a
module-level function (cases: unguarded = hazard WSP101, guarded = safe twin; the guarded case is
also the shape of Turkish-Word2Vec preprocess.py: module-level tokenizer handed to a guarded Pool)."""
import sys
from multiprocessing import Pool

CASE = sys.argv[1] if len(sys.argv) > 1 else "unguarded"
print("IMPORT", __name__, flush=True)

run_comand_list = ["python3 logging_bio_args.py --SEED=%d" % s for s in range(4)]


def run_command_fun(command):
    return len(command)


if CASE == "unguarded":
    num_procs = 2
    pool = Pool(num_procs)
    print("RESULT", pool.map(run_command_fun, run_comand_list), flush=True)
    pool.close()
    pool.join()
elif CASE == "guarded":
    if __name__ == "__main__":
        pool = Pool(2)
        print("RESULT", pool.map(run_command_fun, run_comand_list), flush=True)
        pool.close()
        pool.join()
else:
    raise SystemExit("unknown case " + CASE)
