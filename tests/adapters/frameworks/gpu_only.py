"""OpenRLHF imports deepspeed and flash_attn at module level (for training on GPUs); neither installs on
a CPU machine, and the advantage code the checks call uses neither. Importing this module gives those
two packages empty modules whose every function raises, so a check that did reach them fails loudly."""

import importlib.abc
import importlib.machinery
import sys
import types

GPU_ONLY = ("deepspeed", "flash_attn")


class _Absent(types.ModuleType):
    def __getattr__(self, attr: str):
        if attr.startswith("__"):
            raise AttributeError(attr)

        def unavailable(*_args, **_kwargs):
            raise RuntimeError(f"{self.__name__}.{attr} needs a GPU install; this check must not reach it")

        return unavailable


class _AbsentFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in GPU_ONLY:
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec):
        module = _Absent(spec.name)
        module.__path__ = []
        return module

    def exec_module(self, module) -> None:
        pass


sys.meta_path.insert(0, _AbsentFinder())
