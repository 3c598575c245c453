"""Third-party chatter off by default: vLLM's INFO lines, transformers' warnings and the weight
loading progress bars say nothing a user needs on every run (`-v` brings them back)."""

from __future__ import annotations

import logging
import os
import warnings


def quiet_third_party(verbose: bool = False) -> None:
    """Call before importing vLLM or transformers (vLLM reads its log level at import)."""
    if verbose:
        return
    os.environ.setdefault("VLLM_LOGGING_LEVEL", "ERROR")
    os.environ.setdefault("TRANSFORMERS_VERBOSITY", "error")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("TQDM_DISABLE", "1")  # tqdm reads it at import: the GGUF and checkpoint-shard bars
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    for name in ("vllm", "transformers", "torch", "accelerate", "httpx", "huggingface_hub"):
        logging.getLogger(name).setLevel(logging.WARNING)
    warnings.filterwarnings("ignore", category=FutureWarning)
    try:
        from transformers.utils import logging as hf_logging

        hf_logging.set_verbosity_error()
        hf_logging.disable_progress_bar()  # "Converting and de-quantizing GGUF tensors", "Loading weights"
    except ImportError:
        pass
