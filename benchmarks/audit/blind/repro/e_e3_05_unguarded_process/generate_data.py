"""cases: unguarded (hazard, WSP101, 2 modules: the module-level call starts the Process),
guarded (safe twin: the same under a main guard; the bound-method target pickles)."""
import argparse
import sys

from tfgen import GenerateTFRecord

parser = argparse.ArgumentParser()
parser.add_argument("case")
parser.add_argument("--threads", type=int, default=1)
args = parser.parse_args()

t = GenerateTFRecord("tfrecords/", max(1, 4))
if args.case == "unguarded":
    t.write_to_tf(args.threads)

if __name__ == "__main__" and args.case == "guarded":
    t.write_to_tf(args.threads)
