"""The TriPeaks game server.

``__version__`` is the one version of the package, the API (the OpenAPI document's
``info.version``) and the image (deploy/kubernetes's image tag): a release changes it
here, and the tests hold the others to it.
"""

__version__ = "1.1.0"
