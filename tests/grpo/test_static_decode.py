"""Decoding from buffers allocated once (evalkit/generation/static_decode.py, the path a GPU replays
as a CUDA graph) writes what transformers' `generate` writes with the same per-row seeds: the
packaged SmolLM2 with padded prompts, rows that end early, top-p; other architectures of the allowed
kinds; and a model it does not take goes through `generate` unchanged."""

import pytest
import torch

from evalkit.generation import Sampling
from evalkit.generation.batched import Ends, Prompts, generate_rows, generate_rows_hf, row_seeds
from evalkit.generation.hf import chat_text
from evalkit.generation.static_decode import decode_rows, static_decode_unsupported


def _prompts(tok, texts):
    chats = [chat_text(tok, [{"role": "user", "content": t}], "") for t in texts]
    enc = tok(chats, return_tensors="pt", padding=True, add_special_tokens=False)
    assert not bool(enc["attention_mask"].all())  # prompts of different lengths: some left-padded
    return enc["input_ids"], enc["attention_mask"]


def _both(model, ids, attn, seeds, sampling, ends, dtype=torch.float32):
    static = decode_rows(model, Prompts(ids, attn, seeds), sampling, ends, dtype)
    reference = generate_rows_hf(model, Prompts(ids, attn, seeds), sampling, ends, dtype)
    return static, reference


def _tiny_model(tok, model_type, **settings):
    """A two-layer random model of `model_type` over the packaged tokenizer's vocabulary."""
    from transformers import AutoConfig, AutoModelForCausalLM

    sizes = dict(hidden_size=64, intermediate_size=128, num_hidden_layers=2, num_attention_heads=4)
    sizes |= dict(num_key_value_heads=2, head_dim=16)
    config = AutoConfig.for_model(model_type, vocab_size=len(tok), **sizes, **settings)
    torch.manual_seed(0)
    return AutoModelForCausalLM.from_config(config).eval()


def test_static_decoding_samples_what_generate_samples(smollm2):
    model, tok = smollm2
    model.eval()
    ids, attn = _prompts(tok, ["Say hi.", "Write one long sentence about the sea and the sky.", "2+2?"])
    group = 4
    seeds = row_seeds(11, [str(r) for r in range(ids.shape[0] * group)])
    ends = Ends(tok.pad_token_id, tok.eos_token_id)
    for temperature, top_p in ((1.0, 1.0), (0.8, 0.9), (0.0, 1.0)):
        sampling = Sampling(n=group, temperature=temperature, top_p=top_p, max_tokens=40)
        static, reference = _both(model, ids, attn, seeds if temperature else None, sampling, ends)
        assert torch.equal(static, reference), (temperature, top_p)
    completions = static[:, ids.shape[1] :]
    assert bool((completions == tok.eos_token_id).any()), "no row ended: the end-token path went untested"
    assert static.shape[1] - ids.shape[1] < 40 or bool((completions[:, -1] != tok.pad_token_id).any())


def test_bfloat16_static_decoding_follows_the_same_path(smollm2):
    """In bfloat16 the two paths round differently (one cache layout against another), each about
    1e-3 nats of KL from float32 at the first token: a sampled token moves wherever a row's number
    falls that close to a boundary (often, over 49k tokens), so greedy decoding is what must agree,
    up to a tie that bfloat16 cannot tell apart: where two paths part, their two tokens' float32
    logits differ by no more than bfloat16 moves the logits there, twice over (each path rounds on its
    own). On a CPU without bfloat16 instructions (AVX2) the products sum in another order, and one
    such tie broke the other way."""
    model, tok = smollm2
    model.eval()
    ids, attn = _prompts(tok, ["Name a colour.", "Count to five, slowly, one number a line.", "Why is the sky blue?"])
    sampling = Sampling(n=2, temperature=0.0, top_p=1.0, max_tokens=12)
    static, reference = _both(
        model, ids, attn, None, sampling, Ends(tok.pad_token_id, tok.eos_token_id), torch.bfloat16
    )
    assert static.shape == reference.shape
    for row, (ours, theirs) in enumerate(zip(static, reference)):
        parted = (ours != theirs).nonzero()
        if len(parted):
            at = int(parted[0])
            margin, moved = _tie_at(model, theirs[:at], attn[row // sampling.n], (int(ours[at]), int(theirs[at])))
            assert margin <= 2 * moved, (row, at, margin, moved)


def _tie_at(model, prefix, prompt_mask, tokens):
    """After `prefix` (a left-padded prompt and its completion so far): the float32 logits' gap
    between `tokens`, and the most bfloat16 moves any logit, in float64."""
    from evalkit.devices import autocast

    mask = torch.cat([prompt_mask, torch.ones(len(prefix) - len(prompt_mask), dtype=prompt_mask.dtype)])[None]
    positions = (mask.cumsum(-1) - 1).clamp(min=0)
    with torch.no_grad():
        exact = model(prefix[None], attention_mask=mask, position_ids=positions).logits[0, -1].double()
        with autocast(prefix.device, torch.bfloat16):
            rounded = model(prefix[None], attention_mask=mask, position_ids=positions).logits[0, -1].double()
    first, second = tokens
    return abs(float(exact[first] - exact[second])), float((rounded - exact).abs().max())


@pytest.mark.parametrize("model_type", ["llama", "qwen2", "qwen3"])
def test_every_allowed_architecture_decodes_as_generate_does(smollm2, model_type):
    _, tok = smollm2
    model = _tiny_model(tok, model_type, max_position_embeddings=256)
    assert static_decode_unsupported(model) is None
    ids, attn = _prompts(tok, ["a", "a longer prompt than the first"])
    seeds = list(range(6))
    sampling = Sampling(n=3, temperature=1.0, top_p=0.95, max_tokens=16)
    static, reference = _both(model, ids, attn, seeds, sampling, Ends(tok.pad_token_id, [0]))
    assert torch.equal(static, reference)


def test_a_model_it_does_not_take_goes_through_generate(smollm2):
    """A sliding attention window (Mistral's) is not one full cache: `generate_rows` says why not
    and samples through `generate`, with the same seeds giving the same rows."""
    _, tok = smollm2
    model = _tiny_model(tok, "mistral", sliding_window=8)
    assert "mistral" in static_decode_unsupported(model)
    ids, attn = _prompts(tok, ["a", "a longer prompt"])
    sampling, ends = Sampling(n=2, temperature=1.0, top_p=1.0, max_tokens=6), Ends(tok.pad_token_id, [0])
    rows = generate_rows(model, ids, attn, [1, 2, 3, 4], sampling, ends)
    assert torch.equal(rows, generate_rows_hf(model, Prompts(ids, attn, [1, 2, 3, 4]), sampling, ends))


def test_static_decoding_refuses_a_sampled_batch_without_a_seed_per_row(smollm2):
    model, tok = smollm2
    ids, attn = _prompts(tok, ["a", "bb bb"])
    sampling = Sampling(n=2, temperature=1.0, top_p=1.0, max_tokens=4)
    with pytest.raises(ValueError, match="one seed per row"):
        decode_rows(model, Prompts(ids, attn, [1, 2, 3]), sampling, Ends(0, 0), torch.float32)


def test_a_graph_that_replays_wrong_is_dropped_for_step_by_step(smollm2, monkeypatch):
    """The first graph of a kind of model is checked against step-by-step decoding (bit for bit):
    a replay that does not do what the step does (here one that does nothing, as a recording that
    missed an operation would) is dropped with a warning, the step-by-step rows returned, and
    graphs not tried again in the process. Runs on the CPU: the recording is what is replaced."""
    from evalkit.generation import static_decode

    model, tok = smollm2
    model.eval()
    monkeypatch.setattr(static_decode, "RECORDING_FAILED", [])
    monkeypatch.setattr(static_decode, "GRAPHS_CHECKED", set())
    recordings = []

    def broken_graph_of(step):
        step()  # the real warm-up step, as graph_of runs it
        recordings.append(step)
        return lambda: None

    monkeypatch.setattr(static_decode, "graph_of", broken_graph_of)
    ids, attn = _prompts(tok, ["Say hi.", "Tell me about the moon."])
    sampling, ends = Sampling(n=2, temperature=1.0, top_p=1.0, max_tokens=8), Ends(tok.pad_token_id, tok.eos_token_id)
    seeds = [5, 6, 7, 8]
    with pytest.warns(UserWarning, match="other tokens than step by step"):
        rows = decode_rows(model, Prompts(ids, attn, seeds), sampling, ends, torch.float32, graph=True)
    assert torch.equal(rows, decode_rows(model, Prompts(ids, attn, seeds), sampling, ends, torch.float32))
    assert static_decode.RECORDING_FAILED and len(recordings) == 1
    decode_rows(model, Prompts(ids, attn, seeds), sampling, ends, torch.float32, graph=True)
    assert len(recordings) == 1  # not tried again


def test_a_graph_that_replays_right_is_checked_once(smollm2, monkeypatch):
    """A replay that does what the step does passes the check once and is then used unchecked."""
    from evalkit.generation import static_decode

    model, tok = smollm2
    model.eval()
    monkeypatch.setattr(static_decode, "RECORDING_FAILED", [])
    monkeypatch.setattr(static_decode, "GRAPHS_CHECKED", set())
    decodes = []
    real_decode = static_decode._decode

    def counted(*args, graph):
        decodes.append(graph)
        return real_decode(*args, graph=graph)

    monkeypatch.setattr(static_decode, "_decode", counted)
    monkeypatch.setattr(static_decode, "graph_of", lambda step: (step(), step)[1])  # a faithful "replay"
    ids, attn = _prompts(tok, ["Say hi.", "Tell me about the moon."])
    sampling, ends = Sampling(n=2, temperature=1.0, top_p=1.0, max_tokens=8), Ends(tok.pad_token_id, tok.eos_token_id)
    for _ in range(2):
        decode_rows(model, Prompts(ids, attn, [1, 2, 3, 4]), sampling, ends, torch.float32, graph=True)
    assert decodes == [True, False, True] and not static_decode.RECORDING_FAILED


def test_a_reduced_precision_gpu_decode_runs_attention_through_the_math_kernel():
    """In bfloat16 on a GPU the fused attention kernels made a replayed graph decode other tokens
    than step by step (H200); the decode runs attention through the math kernel there, and changes
    nothing on the CPU or in float32."""
    import contextlib

    import torch

    from evalkit.generation.static_decode import attention_kernels

    assert isinstance(attention_kernels(torch.device("cpu"), torch.bfloat16), contextlib.nullcontext)
    assert isinstance(attention_kernels(torch.device("cuda"), torch.float32), contextlib.nullcontext)
    with attention_kernels(torch.device("cuda"), torch.bfloat16):
        assert torch.backends.cuda.math_sdp_enabled()
        assert not torch.backends.cuda.flash_sdp_enabled() and not torch.backends.cuda.mem_efficient_sdp_enabled()
    assert torch.backends.cuda.flash_sdp_enabled()  # restored after
