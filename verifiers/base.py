"""The `Verifier` base class: one method to write (`evaluate`), the rest comes with it.

Subclasses declare their settings as a dataclass named `Config` whose defaults are
the seed papers' values. `score()` wraps `evaluate()` so that nothing a model
writes can make it raise: a bug in the verifier becomes an `ERROR` score, never a
crash in the caller's training loop.
"""

from __future__ import annotations

import abc
import dataclasses
import functools
import json
import math
import traceback
import types
import typing
from typing import TYPE_CHECKING, Any, ClassVar, Mapping, Sequence

from .score import ITEM_TIMEOUT_SECONDS, Score

if TYPE_CHECKING:
    from .testing import Probe, Strategies


class TaskError(ValueError):
    """The task (not the completion) is malformed: the caller's data is wrong, so it scores ERROR."""


def shown(value: Any, limit: int = 80) -> str:
    """`repr(value)` cut to `limit` characters, for a message about a task's field. Never raises:
    an integer past 4300 digits (or a list holding one) has no repr in Python 3.11."""
    try:
        text = repr(value)
    except ValueError:
        return f"an integer of {value.bit_length()} bits" if isinstance(value, int) else f"a {type(value).__name__}"
    return text if len(text) <= limit else text[:limit] + "…"


@dataclasses.dataclass(frozen=True)
class NoConfig:
    """Config for verifiers that take no settings."""


def _plain(value: Any) -> Any:
    """Tuples become lists, so a config dict is exactly what JSON gives back."""
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def check_types(config: Any, owner: str) -> None:
    """Every field's value against its annotation (int, float, bool, str, tuples, `X | None`; a float
    is finite: NaN or infinity in a weight or a timeout made every item an ERROR), so a mistyped
    setting from JSON or a framework's kwargs fails when the verifier is built, not as an ERROR on
    every item later; and a limit or cost (a setting a client may only lower, `client="at_most"`)
    is never negative. Annotations it cannot read are not checked."""
    hints = _hints(type(config))
    for f in dataclasses.fields(config):
        value, hint = getattr(config, f.name), hints.get(f.name, Any)
        if not _fits(value, hint):
            name = _type_name(hint)
            raise TypeError(f"{owner}: {f.name} must be {name}{' (finite)' if 'float' in name else ''}, got {value!r}")
        if f.metadata.get("client") == "at_most" and _number(value) and value < 0:
            raise ValueError(f"{owner}: {f.name} is a limit and must be >= 0, got {value!r}")


@functools.lru_cache(maxsize=None)
def _hints(config_class: type) -> dict[str, Any]:
    """A Config class's resolved annotations (once: servers and adapters build verifiers often)."""
    try:
        return typing.get_type_hints(config_class)
    except Exception:  # an annotation that does not resolve: nothing to check against
        return {}


def _fits(value: Any, hint: Any) -> bool:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if hint is Any:
        return True
    if origin in (typing.Union, types.UnionType):
        return any(_fits(value, a) for a in args)
    if hint is type(None):
        return value is None
    if hint is bool:
        return isinstance(value, bool)
    if hint is int:
        return isinstance(value, int) and not isinstance(value, bool)
    if hint is float:
        return (
            isinstance(value, (int, float))
            and not isinstance(value, bool)
            and (isinstance(value, int) or math.isfinite(value))
        )
    if hint is str:
        return isinstance(value, str)
    if origin is tuple:
        if not isinstance(value, tuple):
            return False
        if len(args) == 2 and args[1] is Ellipsis:
            return all(_fits(v, args[0]) for v in value)
        return not args or (len(args) == len(value) and all(_fits(v, a) for v, a in zip(value, args)))
    if origin in (dict, Mapping) or hint is dict:
        return isinstance(value, Mapping)
    return True


def _type_name(hint: Any) -> str:
    if typing.get_args(hint):
        return str(hint).replace("typing.", "").replace("NoneType", "None")
    return getattr(hint, "__name__", str(hint))


# ------------------------------------------------------------------ what a client may change
#: How a reward server's client (with its operator's `--allow-client-config`) may change a setting:
#: "free" (a choice of reward shape), "at_most" (a cost or a limit: only lowered, never below 0),
#: "subset" (an allowlist: only shortened), "fixed" (the operator's value only: sandboxes, paths,
#: models). A setting declared without one is "fixed": a client never widens what nobody classified.
CLIENT_POLICIES = ("free", "at_most", "subset", "fixed")


def setting(default: Any, *, client: str = "fixed") -> Any:
    """A Config field with its default and what a reward server's client may do with it
    (`CLIENT_POLICIES`): `rollouts: int = setting(200, client="at_most")`."""
    if client not in CLIENT_POLICIES:
        raise ValueError(f"client must be one of {CLIENT_POLICIES}, got {client!r}")
    return dataclasses.field(default=default, metadata={"client": client})


def client_refusal(config_class: type, requested: Mapping[str, Any], served: Mapping[str, Any]) -> str | None:
    """Why a client may not ask for `requested` on top of the operator's `served` config (both plain
    dicts, the served one complete), or None. Each field's policy comes from its `setting()`."""
    fields = {f.name: f for f in dataclasses.fields(config_class)}
    for name, value in requested.items():
        if name not in fields:
            continue  # building the verifier refuses unknown keys with the list of known ones
        policy = fields[name].metadata.get("client", "fixed")
        current = served.get(name)
        if policy == "free" or _plain(value) == _plain(current):
            continue
        if policy == "fixed":
            return f"{name}: a client may not change it (the operator's value is {current!r})"
        if policy == "subset":
            if not isinstance(value, (list, tuple)) or not set(value) <= set(current or ()):
                return f"{name}: a client may only choose among the operator's {list(current or ())}"
        elif policy == "at_most":
            if not _number(value) or not (0 <= value and (current is None or value <= current)):
                bound = "no more than " + repr(current) if current is not None else "a number"
                return f"{name}: a client may only lower it: {bound}, at least 0, got {value!r}"
    return None


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value == value  # NaN != NaN


class Unsupported(Exception):
    """The verifier does not offer this (e.g. a third-party verifier with no built-in tasks)."""


class Verifier(abc.ABC):
    """Turns `(completion, task)` into a `Score`; knows its tasks and how to prompt for them."""

    name: ClassVar[str] = ""
    Config: ClassVar[type] = NoConfig
    #: Address-space cap for batch worker processes; None for verifiers that load big libraries (torch).
    worker_memory_mb: ClassVar[int | None] = 4096
    #: The rewards this verifier can give (override `reward_bounds` when the config changes them).
    reward_range: ClassVar[tuple[float, float]] = (0.0, 1.0)
    #: True when a CORRECT never earns the bottom reward and a wrong answer never the top one;
    #: `check_verifier` then flags any score where verdict and reward disagree.
    verdicts_order_rewards: ClassVar[bool] = False
    #: Other names a framework's data may use for this verifier (verl's `data_source`, e.g. "24game").
    aliases: ClassVar[tuple[str, ...]] = ()
    #: The reward components this verifier reports (verl needs every column before the first item).
    components: ClassVar[tuple[str, ...]] = ()
    #: Named sets of settings, chosen with `preset=NAME` (settings given beside it win).
    presets: ClassVar[Mapping[str, Mapping[str, Any]]] = {}
    #: Old preset names -> their new ones, still accepted with a DeprecationWarning for one release.
    deprecated_presets: ClassVar[Mapping[str, str]] = {}
    #: The fields a task may hold: name -> what it means, its type, and whether it is needed
    #: (docs/reference.md lists them for every verifier; a test checks that every built-in task's
    #: fields are declared here).
    task_fields: ClassVar[Mapping[str, str]] = {}
    #: For verifiers whose score is pure computation, bounded and linear in the input (no I/O, no
    #: native code that can hang): a completion of at most this many characters is scored in the
    #: caller's thread, which costs less than any worker round trip; longer ones go to the worker
    #: pool and its hard timeout. 0: every item goes to the pool.
    inline_max_chars: ClassVar[int] = 0

    def __init__(self, **config: Any) -> None:
        preset = config.pop("preset", None)
        if preset in self.deprecated_presets:
            import warnings

            new = self.deprecated_presets[preset]
            warnings.warn(
                f"preset {preset!r} is now {new!r}; the old name goes in the next release",
                DeprecationWarning,
                stacklevel=2,
            )
            preset = new
        if preset is not None:
            if preset not in self.presets:
                raise ValueError(
                    f"{self.name or type(self).__name__}: unknown preset {preset!r}; known: {sorted(self.presets)}"
                )
            config = {**self.presets[preset], **config}
        fields = {f.name: f for f in dataclasses.fields(self.Config)}
        unknown = sorted(set(config) - set(fields))
        if unknown:
            raise TypeError(
                f"{self.name or type(self).__name__}: unknown config key(s) {unknown}; known: {sorted(fields)}"
            )
        # A list from JSON goes back to the tuple the dataclass default uses.
        fixed = {
            k: tuple(v) if isinstance(v, list) and isinstance(_default_of(fields[k]), tuple) else v
            for k, v in config.items()
        }
        self.config = self.Config(**fixed)
        check_types(self.config, self.name or type(self).__name__)
        validate = getattr(self.config, "validate", None)
        if callable(validate):  # the Config's own checks: a bad setting fails here, not mid-run
            validate()

    # ----------------------------------------------------------------- config
    def config_dict(self) -> dict[str, Any]:
        """The full config as plain JSON data: `type(v)(**v.config_dict())` rebuilds `v`."""
        return _plain(dataclasses.asdict(self.config))

    @classmethod
    def default_config(cls) -> dict[str, Any]:
        return _plain(dataclasses.asdict(cls.Config()))

    def spec(self) -> dict[str, Any]:
        """Name plus config: what a run records so it is known exactly what scored it."""
        return {"verifier": self.name or type(self).__name__, "config": self.config_dict()}

    def spec_json(self) -> str:
        return json.dumps(self.spec(), sort_keys=True, ensure_ascii=False)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in self.config_dict().items())})"

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and self.config == other.config  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self), self.spec_json()))

    def __getstate__(self) -> dict[str, Any]:
        """A copy of the attributes; subclasses drop what must not travel to workers (locks, models)."""
        return dict(self.__dict__)

    def time_budget(self) -> float | None:
        """The most one `score()` can take by the verifier's own limits, or None if it has none.
        Batch scoring never kills an item sooner, so a completion that overruns the verifier's
        limits gets the verifier's TIMEOUT, not an ERROR from the batch layer's clock."""
        return None

    def worker_killed(self, pid: int) -> None:
        """Release what a batch worker process that was killed (`pid`) left behind: sandbox
        containers, work dirs. Called in the process that owns the pool; nothing by default."""

    def release_orphans(self) -> None:
        """Release what scoring processes on this host left when they died unseen (e.g. a Ray actor
        that was killed). Verifiers that start processes or containers override it."""

    def reward_bounds(self) -> tuple[float, float]:
        """Lowest and highest reward under this config; `check_verifier` holds every score to it."""
        return self.reward_range

    # ----------------------------------------------------------------- scoring
    @abc.abstractmethod
    def evaluate(self, completion: str, task: Mapping[str, Any]) -> Score:
        """Score one completion. Subclasses implement this; callers use `score`."""

    def score(self, completion: str, task: Mapping[str, Any]) -> Score:
        """Score one completion; never raises on anything a model can write."""
        if not isinstance(completion, str):
            return Score.invalid(f"completion must be a string, got {type(completion).__name__}")
        if not isinstance(task, (dict, Mapping)):  # dict first: the ABC check is slow
            return Score.error(f"task must be a mapping, got {type(task).__name__}", task_error=True)
        try:
            result = self.evaluate(completion, task)
        except TaskError as exc:
            return Score.error(f"bad task: {exc}", task_error=True)
        except RecursionError:
            return Score.invalid("input nested too deeply to check")
        except MemoryError:
            return Score.error("verifier ran out of memory")
        except Exception as exc:  # a verifier bug must not crash a training run
            return Score.error(
                f"verifier raised {type(exc).__name__}: {exc}",
                traceback=traceback.format_exc(limit=8),
            )
        if not isinstance(result, Score):
            return Score.error(f"{type(self).__name__}.evaluate returned {type(result).__name__}, not Score")
        return result

    def score_batch(
        self,
        completions: Sequence[str],
        tasks: Sequence[Mapping[str, Any]],
        *,
        workers: int | None = None,
        timeout: float | None = ITEM_TIMEOUT_SECONDS,
        executor: str = "process",
        cache: Any = None,
        progress: Any = None,
        memory_mb: int | None = None,
        deadline: Any = None,
    ) -> list[Score]:
        """Score many items in parallel with a hard per-item wall-clock timeout.

        Results come back in input order. Identical items are scored once. An item
        that hangs, crashes its worker or exhausts memory becomes `ERROR`.
        See `verifiers.batch.score_batch` for the parameters.
        """
        from .batch import score_batch

        return score_batch(
            self,
            completions,
            tasks,
            workers=workers,
            timeout=timeout,
            executor=executor,
            cache=cache,
            progress=progress,
            memory_mb=memory_mb,
            deadline=deadline,
        )

    async def ascore_batch(
        self, completions: Sequence[str], tasks: Sequence[Mapping[str, Any]], **kwargs: Any
    ) -> list[Score]:
        """`score_batch` for asyncio callers: runs in a thread, so the event loop keeps serving."""
        import asyncio

        return await asyncio.to_thread(self.score_batch, completions, tasks, **kwargs)

    # ----------------------------------------------------------------- tasks
    def prompt(self, task: Mapping[str, Any]) -> str:
        """The user message that asks a model to solve `task`."""
        raise Unsupported(f"{type(self).__name__} does not build prompts")

    def tasks(self, split: str = "test", *, limit: int | None = None, seed: int = 0) -> list[dict[str, Any]]:
        """The verifier's built-in tasks for `split` ("train", "test" or "all")."""
        raise Unsupported(f"{type(self).__name__} ships no tasks")

    # ----------------------------------------------------------------- hooks for adapters and tests
    def task_from_ground_truth(self, ground_truth: Any) -> dict[str, Any]:
        """A task from a framework's label (verl's `ground_truth`, OpenRLHF's label, a dataset column).

        A mapping, or its JSON text, is the task itself. Anything else goes to `task_from_shorthand`,
        which a verifier overrides to accept its short forms (game24: "4 4 6 8"). Raises ValueError
        for a label that is no task, which the adapters turn into that item's ERROR.
        """
        if isinstance(ground_truth, Mapping):
            return dict(ground_truth)
        if isinstance(ground_truth, str) and ground_truth.strip().startswith(("{", "[")):
            try:
                parsed = json.loads(ground_truth)
            except json.JSONDecodeError as exc:
                raise ValueError(f"{self.name}: ground truth is not valid JSON ({exc.msg})") from None
            return (
                self.task_from_ground_truth(parsed) if isinstance(parsed, Mapping) else self.task_from_shorthand(parsed)
            )
        return self.task_from_shorthand(ground_truth)

    def task_from_shorthand(self, value: Any) -> dict[str, Any]:
        """A task from a label that is not a JSON object; none is accepted by default."""
        shown = value.strip()[:60] if isinstance(value, str) else type(value).__name__
        raise ValueError(f"{self.name}: ground truth must be a JSON task, got {shown!r}")

    def probes(self) -> "list[Probe]":
        """Known reward hacks for this verifier (`assert_not_hackable` adds the generic ones)."""
        return []

    def strategies(self) -> "Strategies":
        """Hypothesis strategies for property tests: its tasks, and (where the verifier can build them)
        correct and wrong completions for a task."""
        from .testing import Strategies

        return Strategies.from_tasks(self)

    def __enter__(self) -> "Verifier":
        """`with verifiers.get("code") as v:`: the verifier closes when the block ends."""
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Stop the worker pools batch scoring started for this verifier; subclasses that hold more
        (sandbox containers, a render pool) release it too. Whoever creates a verifier closes it."""
        from .batch import close_pools

        close_pools(self)


def _default_of(field: dataclasses.Field) -> Any:
    if field.default is not dataclasses.MISSING:
        return field.default
    if field.default_factory is not dataclasses.MISSING:  # type: ignore[misc]
        return field.default_factory()  # type: ignore[misc]
    return None
