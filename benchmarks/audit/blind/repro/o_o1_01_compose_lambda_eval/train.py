# usage: train.py {hazard|safe|parent_local}; mimics simclr-pytorch train.py main()/main_worker() (guarded)
import sys, os
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ssl_eval as ssl_model  # stands in for models/ssl.py


def main_worker(case):
    data = {'hazard': 'imagenet', 'safe': 'cifar', 'parent_local': 'parent_local'}[case]
    m = ssl_model.SSLEval(data)
    m.prepare_data()
    tr, te = m.dataloaders()
    n = sum(1 for _ in tr) + sum(1 for _ in te)
    print("OK batches", n)


if __name__ == '__main__':
    main_worker(sys.argv[1])
