# mimics DOPE common/utils.py CleanVisiiDopeLoader: with use_s3 the dataset keeps a boto3 Session,
# its s3 resource and Bucket objects (no network is used: bucket listing is replaced by a fixed list)
import torch
import torch.utils.data as data


class CleanVisiiDopeLoader(data.Dataset):
    def __init__(self, path_dataset, use_s3=False, buckets=[], endpoint_url=None):
        self.imgs = []
        self.s3_buckets = {}
        self.use_s3 = use_s3
        if self.use_s3:
            import boto3
            self.session = boto3.Session(region_name='us-east-1')
            self.s3 = self.session.resource(service_name="s3", endpoint_url=endpoint_url)
            for bucket_name in buckets:
                self.s3_buckets[bucket_name] = self.s3.Bucket(bucket_name)
            for bucket in self.s3_buckets:
                self.imgs += [('%d.png' % i, bucket, '%d.json' % i) for i in range(4)]
        else:
            for path_look in path_dataset:
                self.imgs += [('%s/%d.png' % (path_look, i), None, None) for i in range(4)]

    def __len__(self):
        return len(self.imgs)

    def __getitem__(self, index):
        return torch.tensor(float(index))
