from .base_task import TrainingTask, unwrap_model, get_model_from_task
from .image_text_task import ImageTextTask
from .checkpoint import save_checkpoint, load_checkpoint, save_sharded_checkpoint, load_sharded_checkpoint
from .clip_task import CLIPTask
from .siglip_task import SigLIPTask
from .coca_task import CoCaTask
from .genlip_task import GenLipTask
from .genlap_task import GenLapTask
from .distill_task import DistillCLIPTask
from .clap_task import CLAPTask
