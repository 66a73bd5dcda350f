# Mimics BasicSTISR interfaces/super_resolution.py: module-level lpips_vgg = lpips.LPIPS(net="vgg").
from common import heavy_load
lpips_vgg = heavy_load("imported_module")
