"""The image tests run inside ``make image-test`` (tests/image/harness.py), which starts a
Docker engine of its own, builds the image and passes their addresses in the
environment. Run any other way, they are skipped, saying so."""

from __future__ import annotations

import os

import pytest

from tests.image.engine import Docker


@pytest.fixture(scope="session")
def docker() -> Docker:
    host = os.environ.get("TRIPEAKS_DOCKER_HOST")
    if not host:
        pytest.skip("run by `make image-test` (it starts a Docker engine and builds the image)")
    return Docker(
        host,
        os.environ.get("TRIPEAKS_DOCKER", "docker"),
        os.environ.get("TRIPEAKS_DOCKER_CONFIG") or None,
    )


@pytest.fixture(scope="session")
def image(docker: Docker) -> str:
    return os.environ["TRIPEAKS_IMAGE"]
