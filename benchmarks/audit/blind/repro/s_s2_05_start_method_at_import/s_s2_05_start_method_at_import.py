"""Shape: a library module forces set_start_method('fork') when imported on a non-Linux system.
Cases: hazard_windows (emulates Windows, where only 'spawn' exists, by removing 'fork' from the available
contexts before the import: ValueError at import), safe_linux (the condition is false: nothing is set)."""
import multiprocessing
import multiprocessing.context as ctx
import os
import sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def main(case):
    if case == "hazard_windows":
        os.environ["EMULATED_SYSTEM"] = "Windows"
        ctx._concrete_contexts.pop("fork", None)      # Windows: get_all_start_methods() == ['spawn']
    elif case == "safe_linux":
        os.environ["EMULATED_SYSTEM"] = "Linux"
    import khry_agent
    print("start method:", multiprocessing.get_start_method(allow_none=True))
    print("OK", case)


if __name__ == "__main__":
    main(sys.argv[1])
