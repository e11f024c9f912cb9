"""Build step: copy the top-level `resources/` into the wheel as `desktop_app/_resources`.

The layout keeps `resources/` at the top of the repository; a wheel only carries packages, so
`build_py` maps the folder in. An editable install reads the top-level folder directly
(see `desktop_app.paths.resources_dir`). Everything else lives in pyproject.toml.
"""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

RESOURCES = Path(__file__).resolve().parent / "resources"


class BuildWithResources(build_py):
    def run(self) -> None:
        super().run()
        if getattr(self, "editable_mode", False) or not RESOURCES.is_dir():
            return
        target = Path(self.build_lib) / "desktop_app" / "_resources"
        shutil.rmtree(target, ignore_errors=True)
        shutil.copytree(RESOURCES, target)


setup(cmdclass={"build_py": BuildWithResources})
