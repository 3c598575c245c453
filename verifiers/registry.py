"""Verifiers by name: the built-in ones, ones registered in code, and third-party ones
published through the `evalkit.verifiers` entry-point group.

Built-ins are imported lazily, so `verifiers.get("game24")` never pulls in torch.
"""

from __future__ import annotations

import importlib
import warnings
from importlib.metadata import entry_points
from typing import Any, Callable, Iterator, Mapping, TypeVar

from .base import Verifier

ENTRY_POINT_GROUP = "evalkit.verifiers"

# name -> "module:Class"; imported on first use.
_BUILTIN: dict[str, str] = {
    "game24": "verifiers.game24:Game24Verifier",
    "code": "verifiers.code:CodeVerifier",
    "svg": "verifiers.svg:SvgVerifier",
    "gomoku": "verifiers.gomoku:GomokuVerifier",
    "doudizhu": "verifiers.doudizhu:DoudizhuVerifier",
    "noisy": "verifiers.noisy:NoisyVerifier",  # any verifier with a stated reward error, for studies
}
_registered: dict[str, type[Verifier]] = {}

V = TypeVar("V", bound=type[Verifier])


class UnknownVerifier(KeyError):
    def __str__(self) -> str:  # KeyError quotes its message; a user wants a sentence
        return str(self.args[0])


def register(name: str | None = None) -> Callable[[V], V]:
    """Class decorator: `@register("mytask")` makes `get("mytask")` return that class."""

    def add(cls: V) -> V:
        key = name or cls.name
        if not key:
            raise ValueError(f"{cls.__name__} needs a name to be registered")
        cls.name = key
        _registered[key] = cls
        return cls

    return add


def _load(target: str) -> type[Verifier]:
    module, _, attr = target.partition(":")
    return getattr(importlib.import_module(module), attr)


def _entry_points() -> dict[str, Any]:
    return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}


def names() -> list[str]:
    """Every verifier name `get` accepts."""
    return sorted(set(_BUILTIN) | set(_registered) | set(_entry_points()))


def verifier_class(name: str) -> type[Verifier]:
    if name in _registered:
        return _registered[name]
    if name in _BUILTIN:
        cls = _load(_BUILTIN[name])
    else:
        eps = _entry_points()
        if name not in eps:
            raise UnknownVerifier(
                f"unknown verifier {name!r}{_did_you_mean(name, names())}; known: {', '.join(names())}"
            )
        cls = eps[name].load()
    if not (isinstance(cls, type) and issubclass(cls, Verifier)):
        raise TypeError(f"verifier {name!r} resolves to {cls!r}, not a Verifier subclass")
    cls.name = cls.name or name
    _registered[name] = cls
    return cls


def _loadable() -> Iterator[tuple[str, type[Verifier]]]:
    """(name, class) for every known verifier whose class loads; a third-party package that fails
    to import is skipped with a warning, so it cannot break name lookup for all the others."""
    for candidate in names():
        try:
            yield candidate, verifier_class(candidate)
        except Exception as exc:
            warnings.warn(f"verifier {candidate!r} cannot be loaded: {type(exc).__name__}: {exc}", stacklevel=3)


def resolve(name: str) -> str:
    """The verifier name for `name`, which may be a name or one of a verifier's `aliases`
    (case-insensitive), e.g. verl's data_source "24game". Raises UnknownVerifier."""
    known = names()
    if name in known:
        return name
    wanted = name.lower()
    for candidate, cls in _loadable():
        if wanted == candidate.lower() or wanted in (a.lower() for a in cls.aliases):
            return candidate
    raise UnknownVerifier(
        f"unknown verifier {name!r}{_did_you_mean(name, known)}; known: {', '.join(known)} (and their aliases)"
    )


def _did_you_mean(name: object, known: Any) -> str:
    """` (did you mean 'game24'?)` for a near miss (`gam24`), else nothing."""
    import difflib

    close = difflib.get_close_matches(str(name), list(known), n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def all_components() -> tuple[str, ...]:
    """Every reward component any loadable verifier declares, in a stable order."""
    seen: dict[str, None] = {}
    for _, cls in _loadable():
        seen.update(dict.fromkeys(cls.components))
    return tuple(seen)


def get(name: str, config: Mapping[str, Any] | None = None, /, **overrides: Any) -> Verifier:
    """A configured verifier: `get("game24", weights=(0.55, 0.3, 0.15))`, or with the config as a
    dict, as JSON and YAML files give it: `get("code", {"backend": "docker"})` (keywords win)."""
    if config is not None and not isinstance(config, Mapping):
        raise TypeError(f"config must be a mapping of settings, got {type(config).__name__}")
    return verifier_class(name)(**{**(config or {}), **overrides})


def from_spec(spec: dict[str, Any]) -> Verifier:
    """Rebuild a verifier from `Verifier.spec()` (what a run records)."""
    return get(spec["verifier"], **spec.get("config", {}))
