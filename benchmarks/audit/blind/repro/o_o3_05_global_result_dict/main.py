import sys
from post_processing import post_processing

if __name__ == "__main__":
    post_processing({"post_process_thread": 2}, sys.argv[1] if len(sys.argv) > 1 else "hazard")
