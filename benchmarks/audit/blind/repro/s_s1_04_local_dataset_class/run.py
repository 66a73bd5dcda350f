"""Cases: ptb (local Dataset class -> hazard WSP203), snli (module-level class, vocab built with a
parent-only sort lambda -> safe)."""
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import d2l_like

if __name__ == "__main__":
    case = sys.argv[1]
    if case == "ptb":
        it = d2l_like.load_data_ptb(4)
    else:
        it, _ = d2l_like.load_data_snli(4)
    print("batches:", sum(1 for _ in it))
    print("OK", case)
