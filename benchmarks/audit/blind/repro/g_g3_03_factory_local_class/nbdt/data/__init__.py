from .custom import *
from .cifar import *
