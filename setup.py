"""The compiled core of the least model (``engine/_ground.c``); everything else is in
pyproject.toml. ``optional``: without a C compiler the package installs and runs on the Python
that computes the same (see ``peirce.engine.ground_ask``)."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "peirce.engine._ground",
            ["engine/_ground.c"],
            optional=True,
            extra_compile_args=["-O2"],
        )
    ]
)
