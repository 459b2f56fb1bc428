"""One version (``app.__version__``) for the package, the API and the image."""

from __future__ import annotations

import json
from importlib.metadata import version

import yaml

from app import __version__
from tests.fixtures.servers import ROOT


def test_the_package_the_spec_and_the_image_share_one_version() -> None:
    assert version("tripeaks") == __version__
    spec = json.loads((ROOT / "openapi" / "openapi.json").read_text())
    assert spec["info"]["version"] == __version__
    kustomization = yaml.safe_load(
        (ROOT / "deploy" / "kubernetes" / "kustomization.yaml").read_text()
    )
    assert [image["newTag"] for image in kustomization["images"]] == [__version__]
    assert (
        f"tripeaks:{__version__}"
        in (ROOT / "deploy" / "kubernetes" / "kustomization.yaml").read_text()
    )
