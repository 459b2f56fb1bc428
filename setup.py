"""The optional C accelerator of the solver's best-score and clearing searches
(app/engine/_bestscore.c).

Everything else is in pyproject.toml. ``optional=True``: where no C compiler exists the
install goes on without it, and the solver runs its pure Python search.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "app.engine._bestscore",
            ["app/engine/_bestscore.c"],
            extra_compile_args=["-O2"],
            optional=True,
        )
    ]
)
