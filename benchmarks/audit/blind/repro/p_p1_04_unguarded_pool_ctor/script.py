# usage: script.py hazard|zero_workers|guarded
# hazard: unguarded top-level DrQA(...) (scripts/pipeline/interactive.py:64, predict.py:85, reader/predict.py:62)
# zero_workers: unguarded but num_workers=0 (scripts/reader/interactive.py:52)
# guarded: same construction under a main guard
import sys
import pipeline
case = sys.argv[1]
if case == "hazard":
    DrQA = pipeline.DrQA(num_workers=None)
    print("OK", DrQA.process(["who is x", "what is y"]))
elif case == "zero_workers":
    DrQA = pipeline.DrQA(num_workers=0)
    print("OK", DrQA.process(["who is x", "what is y"]))
if __name__ == "__main__" and case == "guarded":
    DrQA = pipeline.DrQA(num_workers=None)
    print("OK", DrQA.process(["who is x", "what is y"]))
