"""Every field of every built-in task is one its verifier declares (`Verifier.task_fields`, listed
in docs/reference.md): a field a verifier reads or ships that no page names cannot slip in."""

import pytest

import verifiers
from verifiers.registry import names, verifier_class

WRAPPERS = {"noisy"}  # its tasks are the wrapped verifier's
# the verifiers we ship and the example plugin (tests and benchmarks register verifiers of their own)
SHIPPED = sorted(
    n for n in set(names()) - WRAPPERS if verifier_class(n).__module__.startswith(("verifiers.", "minimal_verifier."))
)


def test_every_shipped_verifier_is_checked():
    assert {"code", "doudizhu", "game24", "gomoku", "svg"} <= set(SHIPPED)


@pytest.mark.parametrize("name", SHIPPED)
def test_every_built_in_task_field_is_declared(name):
    cls = verifier_class(name)
    assert cls.task_fields, f"{name} declares no task fields"
    quiet = {"preset": "checks_only"} if "checks_only" in cls.presets else {}
    v = verifiers.get(name, **quiet)
    try:
        tasks = v.tasks("all") if name != "code" else v.tasks("test")
    finally:
        v.close()
    used = {field for task in tasks for field in task}
    assert used <= set(cls.task_fields), sorted(used - set(cls.task_fields))


def test_a_declared_field_says_its_type_and_meaning():
    for name in names():
        for field, meaning in verifier_class(name).task_fields.items():
            assert ":" in meaning and len(meaning) > 20, (name, field)
