"""sleep_classifiers classifier_service.py: Pool inside a helper; work = partial of a staticmethod of a module-level class."""
from functools import partial
from multiprocessing import Pool


class ClassifierService(object):
    @staticmethod
    def run_single(split, attributed_classifier, feature_set):
        return (split, attributed_classifier["name"], feature_set)

    @staticmethod
    def run_in_parallel(function, splits, classifier, feature_set):
        pool = Pool(2)
        wrapper = partial(function, attributed_classifier=classifier, feature_set=feature_set)
        res = pool.map(wrapper, splits)
        pool.close(); pool.join()
        return res
