import os
import sys
from guided_diffusion.diffusion import Diffusion


def main():
    case = sys.argv[1]       # import_time | lazy | local_seed_worker
    print("OK", case, Diffusion().ddpg_wrapper("local" if case == "local_seed_worker" else "module"))


if __name__ == "__main__":
    sys.exit(main())
