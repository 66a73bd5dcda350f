"""r12: Pool started inside a (library-style) function that only guarded code calls; the iterable is
a local generator; a registry of lambdas is evaluated in the main process (detectron2 cityscapes,
prepare_panoptic_fpn, DatasetCatalog shapes). Case: safe."""
import functools
import multiprocessing as mp
import sys

CATALOG = {}


def register(name, fn):
    CATALOG[name] = fn


def convert(item, scale):
    return item * scale


def load_all(items):
    pool = mp.Pool(processes=2)

    def iter_items():
        for i in items:
            yield i

    out = pool.map(functools.partial(convert, scale=2), iter_items())
    pool.close()
    pool.join()
    return out


register("demo", lambda: load_all(range(4)))

if __name__ == "__main__":
    print("result", CATALOG[sys.argv[1] if len(sys.argv) > 1 else "demo"]())
