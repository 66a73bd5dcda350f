# mimics stable_audio_tools/configs/dataset_configs/custom_metadata/custom_md_example.py
def get_custom_metadata(info, audio):
    return {"prompt": "a sound"}
