from wsi_pp.filters import calculate_filters, run_tiling
