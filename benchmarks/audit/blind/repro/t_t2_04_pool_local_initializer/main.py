import sys
import toolkits


def main(case):
    pool = toolkits.set_mp(processes=2, local=(case == "hazard"))
    res = [pool.apply_async(toolkits.load_data, (i,)) for i in range(4)]
    print("OK", case, [r.get(timeout=20) for r in res])
    pool.close(); pool.join()


if __name__ == "__main__":
    main(sys.argv[1])
