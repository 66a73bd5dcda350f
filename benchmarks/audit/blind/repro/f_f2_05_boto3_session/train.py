# f_f2_05: DOPE train/train.py shape (guarded main(opt); dataset in ../common/utils.py).
# cases: s3 (hazard WSP301: README-documented --use_s3 keeps boto3 Session/resource on the dataset,
#        DataLoader(num_workers=opt.workers, default 8)), local (safe twin: --data path, no client kept)
import sys
import types
import torch.utils.data
sys.path.insert(1, 'common')
from utils import CleanVisiiDopeLoader


def main(opt):
    training_dataset = CleanVisiiDopeLoader(opt.data, use_s3=opt.use_s3, buckets=opt.train_buckets,
                                            endpoint_url=opt.endpoint)
    training_data = torch.utils.data.DataLoader(training_dataset, batch_size=2, shuffle=True,
                                                num_workers=opt.workers)
    print('batches', sum(1 for _ in training_data))
    print('OK')


if __name__ == '__main__':
    case = sys.argv[1]
    opt = types.SimpleNamespace(data=['d'], use_s3=(case == 's3'), train_buckets=['b1'],
                                endpoint='http://127.0.0.1:9', workers=2)
    main(opt)
