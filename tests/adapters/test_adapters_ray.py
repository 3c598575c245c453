"""score_batch on a local Ray cluster."""
import pytest

import verifiers
from pytest_plugin.parts import require_module


@pytest.fixture(scope="module")
def ray_cluster():
    require_module("ray", "pip install 'evalkit[ray]'")
    import ray

    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, ignore_reinit_error=True)
    yield ray
    ray.shutdown()


def test_ray_executor_matches_the_local_pool(ray_cluster):
    v = verifiers.get("game24")
    tasks = v.tasks("test", limit=30)
    completions = [f"Answer: {t['solution']}" if i % 2 else "Answer: 1 + 1" for i, t in enumerate(tasks)]
    assert v.score_batch(completions, tasks, executor="ray") == v.score_batch(completions, tasks, workers=2)
    v.close()
