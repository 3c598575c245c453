"""Building the Docker image the code sandbox runs in (`evalkit sandbox build`)."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Callable

IMAGE = "evalkit-sandbox:2"  # 2: the judge's packages (libraries.IMAGE_PACKAGES) at libraries.SANDBOX_ROOT
BASE_IMAGE = "evalkit-sandbox-base:bookworm"
DOCKERFILE = Path(__file__).with_name("Dockerfile")


class ImageBuildError(RuntimeError):
    pass


def _docker(*args: str, input: bytes | None = None, timeout: float = 900) -> subprocess.CompletedProcess:
    return subprocess.run(["docker", *args], input=input, capture_output=True, timeout=timeout)


def image_exists(name: str = IMAGE) -> bool:
    return _docker("image", "inspect", name).returncode == 0


def build(name: str = IMAGE, offline: bool | None = None, log: Callable[[str], None] = print) -> str:
    """Build the sandbox image. `offline=None` tries the registry first and falls back to
    debootstrap; True goes straight to debootstrap."""
    with tempfile.TemporaryDirectory(prefix="evalkit-image-") as context:
        _write_context(Path(context))
        if offline is not True:
            log("building from the Dockerfile (registry base image)")
            done = _docker("build", "-t", name, context)
            if done.returncode == 0:
                return name
            log("registry not reachable; bootstrapping Debian offline instead")
        if not image_exists(BASE_IMAGE):
            _bootstrap_base(log)
        done = _docker("build", "--build-arg", f"BASE={BASE_IMAGE}", "-t", name, context)
    if done.returncode != 0:
        raise ImageBuildError(f"docker build failed: {done.stderr.decode(errors='replace')[-500:]}")
    return name


def _write_context(context: Path) -> None:
    """The build context: the Dockerfile and `lib/<name>/<package>` for each package the image
    offers the program, copied from this host's installed copy (no registry needed)."""
    from .libraries import IMAGE_PACKAGES, host_location

    shutil.copy(DOCKERFILE, context / "Dockerfile")
    for package in IMAGE_PACKAGES:
        source = host_location(package)
        target = context / "lib" / package / source.name
        target.parent.mkdir(parents=True)
        if source.is_dir():
            shutil.copytree(source, target, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy(source, target)


def _bootstrap_base(log: Callable[[str], None]) -> None:
    if shutil.which("debootstrap") is None:
        raise ImageBuildError("offline build needs debootstrap: apt-get install debootstrap")
    root = Path(tempfile.mkdtemp(prefix="evalkit-rootfs-"))
    try:
        log("debootstrap --variant=minbase --include=python3 bookworm (about a minute)")
        boot = subprocess.run(
            ["debootstrap", "--variant=minbase", "--include=python3", "bookworm", str(root)],
            capture_output=True,
            timeout=1800,
        )
        if boot.returncode != 0:
            raise ImageBuildError(f"debootstrap failed: {boot.stderr.decode(errors='replace')[-500:]}")
        log(f"importing the root file system as {BASE_IMAGE}")
        tar = subprocess.Popen(["tar", "-C", str(root), "-c", "."], stdout=subprocess.PIPE)
        imported = subprocess.run(
            ["docker", "import", "-", BASE_IMAGE], stdin=tar.stdout, capture_output=True, timeout=900
        )
        tar.wait()
        if imported.returncode != 0:
            raise ImageBuildError(f"docker import failed: {imported.stderr.decode(errors='replace')[-500:]}")
    finally:
        shutil.rmtree(root, ignore_errors=True)
