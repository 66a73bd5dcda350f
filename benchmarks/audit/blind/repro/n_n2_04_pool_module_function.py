# mimics CodeT5 utils.load_and_cache_gen_data (pool.map(convert_examples_to_features)) and torchseq
# opsumm_cluster_aug (pool.map(pairwise_r2)) under a guarded main: safe. Twin: local function (hazard shape).
import sys
import multiprocessing


def convert_examples_to_features(item):
    idx, text = item
    return idx, len(text.split())


def load_and_cache(pool, examples, local):
    if local:
        def conv(item):
            return item[0], len(item[1].split())
        return pool.map(conv, examples)
    return pool.map(convert_examples_to_features, examples)


def main(case):
    ex = [(i, "def f(x): return x + %d" % i) for i in range(10)]
    with multiprocessing.Pool(2) as pool:
        print("OK", load_and_cache(pool, ex, case == "local_function")[:2])


if __name__ == "__main__":
    main(sys.argv[1])
