# usage: main.py hazard|safe   (driver guarded, as a user's Train script would be)
import sys
import load_data, dev_function

if __name__ == "__main__":
    loader = load_data.get_data(sys.argv[1])
    print("OK", dev_function.train(loader))
