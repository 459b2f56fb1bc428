"""The optional C accelerator of the solver's searches: one extension module,
``app.engine.solver._accel``, from the C sources beside the Python searches they follow
(app/engine/solver/accel.h lists them).

Everything else is in pyproject.toml. ``optional=True``: where no C compiler exists the
install goes on without it, and the solver runs its pure Python search.
"""

from setuptools import Extension, setup

ACCEL = "app/engine/solver/"

setup(
    ext_modules=[
        Extension(
            "app.engine.solver._accel",
            sources=[
                ACCEL + name
                for name in (
                    "accel.c",
                    "tables.c",
                    "streaks.c",
                    "best.c",
                    "bounds.c",
                    "ceiling.c",
                    "layers.c",
                    "clear.c",
                )
            ],
            depends=["app/engine/solver/accel.h"],
            extra_compile_args=["-O2"],
            optional=True,
        )
    ]
)
