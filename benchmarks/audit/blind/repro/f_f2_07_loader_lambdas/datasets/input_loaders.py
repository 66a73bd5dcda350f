# mimics hoi-forecast datasets/input_loaders.py: get_features_loader makes two lambdas and hands them to
# the features loader class, which keeps them; PipeLoaders keeps the loaders
import torch


class ActionAnticipationSampler(object):
    def __init__(self, fps=4.0):
        self.fps = fps

    def __call__(self, action):
        return [0.0, 0.25], [action, action + 1]


class PipeLoaders(object):
    def __init__(self, loader_list):
        self.loader_list = loader_list

    def __call__(self, action):
        out = {}
        for loader in self.loader_list:
            out.update(loader(action))
        return out


def to_tensor(x):                    # module-level twins of the two lambdas
    return torch.tensor(x.copy())


def stack(x):
    return torch.stack(x, 0)


def get_features_loader(args, featuresloader):
    sampler = ActionAnticipationSampler()
    if args.module_level_transforms:
        transform_feat, transform_video = to_tensor, stack
    else:
        transform_feat = lambda x: torch.tensor(x.copy())
        transform_video = lambda x: torch.stack(x, 0)
    loader_args = {'feature_base_path': args.feature_path, 'transform_feat': transform_feat,
                   'transform_video': transform_video, 'sampler': sampler}
    return PipeLoaders([featuresloader(input_name='rgb', **loader_args)])
