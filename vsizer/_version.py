"""The version of vsizer: one place, read by the package, the CLI, the plan
documents and the build (``[tool.setuptools.dynamic]`` in pyproject.toml)."""

__version__ = "0.1.0"
