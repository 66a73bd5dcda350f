# f_f2_04: fbrs_interactive_segmentation shape. train.py (guarded) loads the model script with
# importlib.util.spec_from_file_location("model_script", path) and calls model_script.main(cfg).
# cases: local_func (hazard WSP202: scale_func defined inside train(), kept as dataset.image_rescale,
#        DataLoader(num_workers=--workers, default 4) in isegm/engine/trainer.py),
#        module_func (variant, not labelled: the same function at module level of the spec-loaded script),
#        package_func (safe twin: importable function + Compose input_transform)
import importlib.util
import sys
import types


def load_module(script_path):
    spec = importlib.util.spec_from_file_location("model_script", script_path)
    model_script = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(model_script)
    return model_script


def main():
    case = sys.argv[1]
    model_script = load_module('models/%s.py' % case)
    cfg = types.SimpleNamespace(workers=2)
    model_script.main(cfg)
    print('OK')


if __name__ == '__main__':
    main()
