"""f_f3_04: ImageNet-Datasets-Downloader downloader.py: a top-level loop over classes opens a
multiprocessing Pool per class with no main guard. No network: get_image only records the URL.
Usage: python f_f3_04_unguarded_pool.py CASE
CASE: unguarded (hazard), guarded (safe twin), parent_lambda (safe: a URL-building lambda
used by the parent only, guarded loop)."""
import os
import sys
from multiprocessing import Pool

case = sys.argv[1] if len(sys.argv) > 1 else "unguarded"
print(f"import of {__name__} in pid {os.getpid()}", flush=True)

IMAGENET_API_WNID_TO_URLS = lambda wnid: f"http://example.invalid/geturls?wnid={wnid}"
classes_to_scrape = ["n01", "n02"]


def get_image(img_url):
    return len(img_url)


def scrape():
    out = []
    for class_wnid in classes_to_scrape:
        url_urls = IMAGENET_API_WNID_TO_URLS(class_wnid)      # parent only
        urls = [url_urls + f"&i={i}" for i in range(4)]
        with Pool(processes=2) as p:
            out.append(p.map(get_image, urls))
    return out


if case == "unguarded":
    results = []
    for class_wnid in classes_to_scrape:                       # top-level, as downloader.py:317
        urls = [IMAGENET_API_WNID_TO_URLS(class_wnid) + f"&i={i}" for i in range(4)]
        with Pool(processes=2) as p:
            results.append(p.map(get_image, urls))
    print("RESULT", results)

if __name__ == "__main__" and case in ("guarded", "parent_lambda"):
    print("RESULT", scrape())
