import sys

from torch.utils.data import DataLoader

import function
from isic import ISIC2016


def main():
    if function.CASE == "safe":
        function.setup()
    loader = DataLoader(ISIC2016(), batch_size=2, shuffle=False, num_workers=2)
    print("OK", function.CASE, "samples", function.validation(loader))


if __name__ == "__main__":
    main()
