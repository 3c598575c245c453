import shutil
import subprocess

import pytest

from pytest_plugin.parts import require_part


def _docker_ready() -> bool:
    if shutil.which("docker") is None:
        return False
    ok = subprocess.run(["docker", "image", "inspect", "evalkit-sandbox:1"], capture_output=True).returncode == 0
    return ok


def _require_docker() -> None:
    require_part(_docker_ready, "a running Docker daemon with the evalkit-sandbox:1 image",
                 "bash scripts/setup-env.sh (starts dockerd and runs `evalkit sandbox build`)")


@pytest.fixture(scope="session")
def docker_backend():
    _require_docker()
    from sandboxes.docker_pool import DockerBackend

    made = DockerBackend(pool_size=1)
    yield made
    made.close()


@pytest.fixture(scope="session", params=["local", "docker"])
def backend(request):
    """Each sandbox backend once per session (the Docker one keeps a warm pool)."""
    if request.param == "docker":
        _require_docker()
        from sandboxes.docker_pool import DockerBackend

        made = DockerBackend(pool_size=2)
    else:
        require_part(lambda: shutil.which("bwrap") is not None, "bubblewrap", "apt-get install bubblewrap")
        from sandboxes.local import LocalBackend

        made = LocalBackend()
    yield made
    made.close()
