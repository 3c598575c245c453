"""open_clip for real: a tiny random model built from open_clip's ViT-B-32 config, saved and reloaded."""

import numpy as np
import pytest

from verifiers.svg.clip import (
    ClipScorer,
    ClipUnavailable,
    contrastive_probability,
    register_tiny_model,
    uses_quick_gelu,
)


def _images() -> list[np.ndarray]:
    white = np.full((256, 256, 3), 255, np.uint8)
    red = white.copy()
    red[64:192, 64:192] = (220, 30, 30)
    noise = np.random.default_rng(0).integers(0, 255, (256, 256, 3), dtype=np.uint8)
    return [white, red, noise]


@pytest.fixture(scope="module")
def scorer(tiny_clip):
    return ClipScorer(weights=tiny_clip, batch_size=2)


def test_local_dir_model_runs_in_fp32_eval_mode_without_grad(scorer):
    assert not scorer.model.training
    assert all(
        p.dtype.is_floating_point and p.dtype.itemsize == 4 and not p.requires_grad for p in scorer.model.parameters()
    )
    emb = scorer.encode_images(_images())
    assert emb.shape[0] == 3 and np.allclose(np.linalg.norm(emb, axis=1), 1, atol=1e-5)
    assert scorer.describe()["model"] == scorer.weights  # the folder names the model


def test_batched_images_equal_one_at_a_time(scorer):
    images = _images()
    together = scorer.encode_images(images)  # batch_size 2: batches of 2 and 1
    alone = np.concatenate([scorer.encode_images([im]) for im in images])
    np.testing.assert_allclose(together, alone, atol=1e-5)


def test_text_embeddings_are_cached_per_prompt(scorer):
    first = scorer.encode_texts(["a red square", "a blue circle"])
    assert {"a red square", "a blue circle"} <= set(scorer._text_cache)
    again = scorer.encode_texts(["a blue circle", "a red square"])
    np.testing.assert_array_equal(first[::-1], again)


def test_a_checkpoint_file_reloads_to_identical_embeddings(scorer, tmp_path):
    import torch

    path = tmp_path / "tiny.pt"
    torch.save(scorer.model.state_dict(), path)
    reloaded = ClipScorer(register_tiny_model(), str(path), batch_size=scorer.batch_size)
    images, texts = _images(), ["a regular hexagon", "a five-pointed star"]
    np.testing.assert_array_equal(reloaded.encode_images(images), scorer.encode_images(images))
    np.testing.assert_array_equal(reloaded.encode_texts(texts), scorer.encode_texts(texts))


def test_a_different_checkpoint_gives_different_embeddings(scorer, tmp_path):
    from verifiers.svg.clip import save_tiny_model

    other = ClipScorer(weights=save_tiny_model(tmp_path / "other", seed=1))
    assert not np.allclose(other.encode_images(_images()[1:2]), scorer.encode_images(_images()[1:2]))


def test_quickgelu_mismatch_is_refused_before_any_download():
    with pytest.raises(ClipUnavailable, match="QuickGELU mismatch.*ViT-B-32-quickgelu"):
        ClipScorer("ViT-B-32", "openai")
    with pytest.raises(ClipUnavailable, match="QuickGELU mismatch"):
        ClipScorer("ViT-B-32-quickgelu", "laion2b_s34b_b79k")  # trained with plain GELU


def test_quickgelu_is_read_from_the_built_model(tmp_path):
    import open_clip
    import torch

    torch.manual_seed(0)
    name = register_tiny_model()
    plain = open_clip.create_model(name)
    quick = open_clip.create_model(name, force_quick_gelu=True)
    assert not uses_quick_gelu(plain) and uses_quick_gelu(quick)
    torch.save(quick.state_dict(), tmp_path / "q.pt")
    # The same weights load into either activation without complaint; only the outputs differ.
    a = ClipScorer(name, str(tmp_path / "q.pt"))
    assert a.quick_gelu is False


def test_missing_weights_file_is_a_clear_error(tmp_path):
    with pytest.raises(ClipUnavailable, match="cannot load open_clip"):
        ClipScorer(register_tiny_model(), str(tmp_path / "missing.pt"))


def test_contrastive_probability_is_a_softmax_over_prompt_and_negatives():
    texts = np.eye(3, dtype=np.float32)
    image = np.array([0.6, 0.8, 0.0], dtype=np.float32)
    p = contrastive_probability(image, texts, scale=100.0)
    assert p.sum() == pytest.approx(1.0) and p.argmax() == 1
    assert contrastive_probability(image, texts, scale=1.0)[1] < p[1]  # a sharper scale, a surer choice


def test_an_uncached_tag_offline_fails_at_once_with_one_line(tmp_path, monkeypatch):
    """No hub retries: the tag is not cached and the host does not answer, so open_clip is never asked."""
    import socket

    import open_clip

    def offline(*args, **kwargs):
        raise OSError("network unreachable")

    def never(*args, **kwargs):
        raise AssertionError("open_clip was asked to download")

    monkeypatch.setenv("HF_HUB_CACHE", str(tmp_path / "hub"))
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setattr(socket, "create_connection", offline)
    monkeypatch.setattr(open_clip, "create_model_from_pretrained", never)
    with pytest.raises(ClipUnavailable) as info:
        ClipScorer("ViT-B-32-quickgelu", "openai")
    message = str(info.value)
    assert "\n" not in message and "clip_weights=/path" in message and "local-dir:" in message
