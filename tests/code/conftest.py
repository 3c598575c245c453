import shutil
import subprocess

import pytest

from pytest_plugin.required_parts import require_part


def _docker_ready() -> bool:
    if shutil.which("docker") is None:
        return False
    from sandboxes.image import IMAGE

    return subprocess.run(["docker", "image", "inspect", IMAGE], capture_output=True).returncode == 0


def open_backend(name: str, pool_size: int = 2):
    """A sandbox backend by name, or a skip (outside CI) / failure (in CI) saying how to get it."""
    if name == "docker":
        require_part(
            _docker_ready,
            "a running Docker daemon with the evalkit sandbox image",
            "bash scripts/setup-env.sh (starts dockerd and runs `evalkit sandbox build`)",
        )
        from sandboxes.docker_pool import DockerBackend

        return DockerBackend(pool_size=pool_size)
    require_part(lambda: shutil.which("bwrap") is not None, "bubblewrap", "apt-get install bubblewrap")
    from sandboxes.local import LocalBackend

    return LocalBackend()


@pytest.fixture(scope="session")
def docker_backend():
    made = open_backend("docker", pool_size=1)
    yield made
    made.close()


@pytest.fixture(scope="session", params=["local", "docker"])
def backend(request):
    """Each sandbox backend once per session (the Docker one keeps a warm pool)."""
    made = open_backend(request.param)
    yield made
    made.close()


@pytest.fixture(scope="module")
def both_backends():
    made = [open_backend("local"), open_backend("docker", pool_size=1)]
    yield made
    for b in made:
        b.close()


@pytest.fixture(scope="module", params=["local", "docker"])
def one_sandbox(request):
    """Each backend with one warm sandbox, so a test's second job runs where its first ran."""
    made = open_backend(request.param, pool_size=1)
    yield made
    made.close()


@pytest.fixture(scope="module")
def local_backend():
    made = open_backend("local")
    yield made
    made.close()
