"""Build (or check) the Docker image the code sandbox runs in (`evalkit sandbox build`), or release
what crashed jobs left behind (`evalkit sandbox clean`: containers, work dirs and cgroups of
evalkit processes that are gone; what live processes hold is left alone)."""

from __future__ import annotations

import argparse

from evalkit.commands import CommandError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "action",
        choices=["build", "check", "clean"],
        help="build the image, check that it exists, or clean up after crashes",
    )
    parser.add_argument("--offline", action="store_true", help="skip the registry: bootstrap Debian with debootstrap")


def run(args: argparse.Namespace) -> int:
    from sandboxes.image import IMAGE, ImageBuildError, build, image_exists

    if args.action == "clean":
        from sandboxes.cleanup import release_orphans

        release_orphans(docker=image_exists())  # Docker only where a daemon answers with our image
        print("released what dead evalkit processes left (containers, work dirs, cgroups)")
        return 0
    if args.action == "check":
        if not image_exists():
            raise CommandError(f"image {IMAGE} is missing: run `evalkit sandbox build`")
        print(f"{IMAGE} is present")
        return 0
    try:
        print(f"built {build(offline=True if args.offline else None, log=lambda m: print(f'[sandbox] {m}'))}")
    except (ImageBuildError, OSError) as exc:
        raise CommandError(str(exc)) from None
    return 0
