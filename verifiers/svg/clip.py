"""open_clip scoring: image-text cosine, a contrastive probability against hard negatives.

Weights come from a local file (`/path/model.pt|.safetensors` with a model name), a local folder
(`local-dir:/path` holding `open_clip_config.json` and weights), or a pretrained tag such as
`openai` when the machine is online. The model runs in fp32, eval mode, without gradients; images
are encoded in batches and text embeddings are cached per string.

QuickGELU: OpenAI and LAION-400M ViT-B-32 weights were trained with QuickGELU. Loaded into the
plain `ViT-B-32` config they give wrong embeddings *without any error* (open_clip only warns), so a
tag whose training activation differs from the model config's is refused here, and the activation
in use is reported (`quick_gelu`).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Sequence

import numpy as np

TINY_MODEL = "evalkit-tiny-ViT-B-32"


class ClipUnavailable(RuntimeError):
    """The CLIP model cannot be loaded (no weights here, offline, bad path)."""


class ClipScorer:
    def __init__(
        self, model: str = "ViT-B-32-quickgelu", weights: str = "openai", batch_size: int = 32, device: str = "cpu"
    ) -> None:
        import open_clip
        import torch

        # A local-dir folder carries its own config, so the folder names the model.
        self.model_name = weights if weights.startswith("local-dir:") else model
        self.weights, self.batch_size, self.device = weights, batch_size, device
        try:
            if weights.startswith("local-dir:"):
                model_obj, preprocess = open_clip.create_model_from_pretrained(weights, device=device)
                tokenizer = open_clip.get_tokenizer(weights)
            else:
                _refuse_quickgelu_mismatch(model, weights)
                if weights == "random":  # the architecture's compute without its weights: for benchmarks
                    with _quiet_random_init():
                        model_obj, _train, preprocess = open_clip.create_model_and_transforms(model, device=device)
                else:
                    _refuse_unreachable_tag(model, weights)
                    model_obj, preprocess = open_clip.create_model_from_pretrained(
                        model, pretrained=weights, device=device, precision="fp32"
                    )
                tokenizer = open_clip.get_tokenizer(model)
        except ClipUnavailable:
            raise
        except Exception as exc:
            raise ClipUnavailable(
                f"cannot load open_clip {model!r} with weights {weights!r}: {type(exc).__name__}: {exc}. "
                f"{OFFLINE_HELP[0].upper()}{OFFLINE_HELP[1:]}; tags such as 'openai' need the network once."
            ) from None
        self.model = model_obj.eval()
        for p in self.model.parameters():
            p.requires_grad_(False)
        self.preprocess = preprocess
        self.tokenizer = tokenizer
        self.quick_gelu = uses_quick_gelu(self.model)
        self.logit_scale = float(self.model.logit_scale.exp().item())
        self._text_cache: dict[str, np.ndarray] = {}
        self._torch = torch

    def describe(self) -> dict[str, Any]:
        return {
            "model": self.model_name,
            "weights": self.weights,
            "quick_gelu": self.quick_gelu,
            "logit_scale": round(self.logit_scale, 4),
        }

    def encode_texts(self, texts: Sequence[str]) -> np.ndarray:
        """L2-normalised text embeddings, one row per text; each distinct string is encoded once."""
        missing = [t for t in dict.fromkeys(texts) if t not in self._text_cache]
        if missing:
            with self._torch.no_grad():
                emb = self.model.encode_text(self.tokenizer(missing).to(self.device), normalize=True)
            for text, row in zip(missing, emb.float().cpu().numpy()):
                self._text_cache[text] = row
        return np.stack([self._text_cache[t] for t in texts])

    def encode_images(self, images: Sequence[np.ndarray]) -> np.ndarray:
        """L2-normalised embeddings of RGB uint8 images, `batch_size` at a time."""
        from PIL import Image

        out = []
        for start in range(0, len(images), self.batch_size):
            batch = [self.preprocess(Image.fromarray(im)) for im in images[start : start + self.batch_size]]
            with self._torch.no_grad():
                emb = self.model.encode_image(self._torch.stack(batch).to(self.device), normalize=True)
            out.append(emb.float().cpu().numpy())
        return np.concatenate(out) if out else np.zeros((0, 0), dtype=np.float32)


def contrastive_probability(image: np.ndarray, texts: np.ndarray, scale: float) -> np.ndarray:
    """Softmax over `scale * cosine` of one image against [prompt, *negatives]; index 0 is the prompt."""
    logits = scale * (texts @ image)
    logits = logits - logits.max()
    p = np.exp(logits)
    return p / p.sum()


def uses_quick_gelu(model: Any) -> bool:
    """Whether the model's MLPs use QuickGELU (what open_clip built, not what a name claims)."""
    from open_clip.transformer import QuickGELU

    return any(isinstance(m, QuickGELU) for m in model.modules())


def _refuse_quickgelu_mismatch(model: str, weights: str) -> None:
    import open_clip

    if os.path.exists(weights) or weights == "random":
        return
    # A tag is listed under the config it was trained with: look under the other spelling too.
    tag_cfg = open_clip.get_pretrained_cfg(model, weights) or open_clip.get_pretrained_cfg(
        model.removesuffix("-quickgelu"), weights
    )
    if not tag_cfg:
        return  # unknown tag: open_clip will say so
    model_cfg = open_clip.get_model_config(model) or {}
    if bool(tag_cfg.get("quick_gelu", False)) != bool(model_cfg.get("quick_gelu", False)):
        want = f"{model}-quickgelu" if tag_cfg.get("quick_gelu") else model.replace("-quickgelu", "")
        raise ClipUnavailable(
            f"QuickGELU mismatch: weights {weights!r} were trained with quick_gelu={bool(tag_cfg.get('quick_gelu'))} "
            f"but config {model!r} has quick_gelu={bool(model_cfg.get('quick_gelu'))}; the embeddings would be "
            f"silently wrong. Use clip_model={want!r}."
        )


OFFLINE_HELP = (
    "pass clip_weights=/path/to/weights (with clip_model=its config name) or clip_weights='local-dir:/folder', "
    "or score without CLIP: verifiers.get('svg', preset='checks_only') (the programmatic checks alone)"
)


def _refuse_unreachable_tag(model: str, weights: str, timeout: float = 2.0) -> None:
    """Offline, a tag that is not in the local caches fails in seconds with one line, instead of
    open_clip spending a minute in hub retries."""
    import socket
    from urllib.parse import urlparse

    import open_clip

    if os.path.exists(weights):
        return
    cfg = open_clip.get_pretrained_cfg(model, weights) or open_clip.get_pretrained_cfg(
        model.removesuffix("-quickgelu"), weights
    )
    if not cfg:
        return  # unknown tag: open_clip will say so
    repo = str(cfg.get("hf_hub") or "").strip("/")
    hub_cache = Path(
        os.environ.get("HF_HUB_CACHE")
        or Path(os.environ.get("HF_HOME", Path.home() / ".cache" / "huggingface")) / "hub"
    )
    if repo and (hub_cache / f"models--{repo.replace('/', '--')}").is_dir():
        return  # downloaded before: open_clip can load it without the network
    url = str(cfg.get("url") or "")
    if url and (Path.home() / ".cache" / "clip" / Path(urlparse(url).path).name).exists():
        return
    host = "huggingface.co" if repo else urlparse(url).hostname
    if not host:
        return
    try:
        socket.create_connection((host, 443), timeout=timeout).close()
    except OSError:
        raise ClipUnavailable(
            f"the weights {weights!r} are not cached here and {host} cannot be reached (offline); {OFFLINE_HELP}"
        ) from None


class _quiet_random_init:
    """open_clip logs a warning for a model created without weights; a requested random model is not news."""

    def __enter__(self) -> None:
        import logging

        self._logger = logging.getLogger()
        self._level = self._logger.level
        self._logger.setLevel(logging.ERROR)

    def __exit__(self, *exc: Any) -> None:
        self._logger.setLevel(self._level)


# --------------------------------------------------------------------------- the tiny test model
def tiny_config() -> dict[str, Any]:
    """open_clip's own ViT-B-32 config shrunk to a model that encodes in milliseconds on a CPU.

    Same tokenizer, context length, vocabulary, image size and patch size as ViT-B-32: only widths
    and depths shrink, so every code path (preprocess, tokenizer, encoders) is the real one.
    """
    import open_clip

    cfg = json.loads(json.dumps(open_clip.get_model_config("ViT-B-32")))
    cfg["embed_dim"] = 64
    cfg["vision_cfg"].update(width=64, layers=2, head_width=32)
    cfg["text_cfg"].update(width=64, heads=2, layers=2)
    return cfg


def register_tiny_model() -> str:
    """Make `evalkit-tiny-ViT-B-32` known to open_clip (idempotent); returns the name."""
    import open_clip

    if TINY_MODEL not in open_clip.list_models():
        folder = Path(os.environ.get("TMPDIR", "/tmp")) / f"evalkit-open-clip-configs-{os.getuid()}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"{TINY_MODEL}.json").write_text(json.dumps(tiny_config()))
        open_clip.add_model_config(folder)
    return TINY_MODEL


def save_tiny_model(folder: str | Path, seed: int = 0) -> str:
    """Write a randomly initialised tiny CLIP as an open_clip `local-dir:` folder; returns that spec.

    This is what CI scores with (no weights can be downloaded there). Its scores are *not* a
    measure of drawing quality: it is random. Use real weights for real rewards.
    """
    import open_clip
    import torch
    from safetensors.torch import save_file

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    torch.manual_seed(seed)
    with _quiet_random_init():
        model = open_clip.create_model(register_tiny_model(), pretrained=None)
    save_file({k: v.contiguous() for k, v in model.state_dict().items()}, str(folder / "open_clip_model.safetensors"))
    config = {"model_cfg": tiny_config(), "preprocess_cfg": dict(model.visual.preprocess_cfg)}
    (folder / "open_clip_config.json").write_text(json.dumps(config, indent=1))
    return f"local-dir:{folder}"
