import sys
from dataloader import get_loader

if __name__ == "__main__":
    case = sys.argv[1]          # lambda | module_function
    loader = get_loader(2, case)
    s = sum(float(b.sum()) for b in loader)
    print("OK", case, s)
