# Mimics pytorch-auto-drive utils/curve_utils.py BezierSampler: a torch Module whose
# __init__ stores the lambda returned by get_bezier_coefficient(); the lane dataset
# (_BezierLaneDataset) keeps an instance; DataLoader(num_workers=cfg workers=8).
# cases: hazard (lambda stored), safe (bound method stored instead)
import sys
import torch
import torch.utils.data


class BezierSampler(torch.nn.Module):
    def __init__(self, order, num_sample_points, safe=False):
        super().__init__()
        self.num_control_points = order + 1
        self.num_sample_points = num_sample_points
        self.bezier_coeff = self.coeff if safe else self.get_bezier_coefficient()
        self.bernstein_matrix = torch.tensor(
            self.bezier_coeff(torch.linspace(0, 1, num_sample_points).tolist()))

    def get_bezier_coefficient(self):
        Mtk = lambda n, t, k: t ** k * (1 - t) ** (n - k)
        BezierCoeff = lambda ts: [[Mtk(self.num_control_points - 1, t, k)
                                   for k in range(self.num_control_points)] for t in ts]
        return BezierCoeff

    def coeff(self, ts):
        n = self.num_control_points - 1
        return [[t ** k * (1 - t) ** (n - k) for k in range(n + 1)] for t in ts]


class BezierLaneDataset(torch.utils.data.Dataset):
    def __init__(self, safe):
        self.bezier_sampler = BezierSampler(order=3, num_sample_points=10, safe=safe)

    def __len__(self):
        return 4

    def __getitem__(self, i):
        return self.bezier_sampler.bernstein_matrix.sum() + i


if __name__ == "__main__":
    case = sys.argv[1]
    ds = BezierLaneDataset(safe=(case == "safe"))
    loader = torch.utils.data.DataLoader(ds, batch_size=2, num_workers=2)
    print("OK", [b.tolist() for b in loader])
