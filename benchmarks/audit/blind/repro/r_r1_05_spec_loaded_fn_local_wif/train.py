# mimics train.py (--num-workers default 6 in defaults.ini; 2 here)
import sys
from sat_dataset import create_dataloader_from_config

CFG = {
    "audio_dir_custom_md": {"dataset_type": "audio_dir", "datasets": [{"id": "a", "path": "/x", "custom_metadata_module": "custom_md_example.py"}]},
    "audio_dir_registered": {"dataset_type": "audio_dir", "register_module": True, "datasets": [{"id": "a", "path": "/x", "custom_metadata_module": "custom_md_example.py"}]},
    "audio_dir_no_md": {"dataset_type": "audio_dir", "datasets": [{"id": "a", "path": "/x"}]},
    "wds_local_wif": {"dataset_type": "wds"},
}


def main(case):
    for b in create_dataloader_from_config(CFG[case], num_workers=2):
        pass
    print("OK", case)


if __name__ == "__main__":
    main(sys.argv[1])
