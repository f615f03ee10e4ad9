"""The docbm package's build, for the one thing pyproject.toml cannot say: a wheel that
carries libdocbm (``make wheel`` puts ``docbm/libdocbm.so.0`` beside the modules) is made
for this machine's platform, with no Python ABI tag, since ctypes needs none."""

from __future__ import annotations

import os
from typing import Tuple

from setuptools import setup

try:
    from wheel.bdist_wheel import bdist_wheel
except ImportError:  # no wheel package: an sdist or an install from the source tree
    bdist_wheel = None

BUNDLED = os.path.exists(os.path.join(os.path.dirname(os.path.abspath(__file__)), "docbm", "libdocbm.so.0"))
commands = {}

if bdist_wheel is not None and BUNDLED:

    class PlatformWheel(bdist_wheel):
        """A wheel for this platform (it holds libdocbm), for any Python 3."""

        def finalize_options(self) -> None:
            super().finalize_options()
            self.root_is_pure = False

        def get_tag(self) -> Tuple[str, str, str]:
            _, _, platform = super().get_tag()
            return "py3", "none", platform

    commands["bdist_wheel"] = PlatformWheel

setup(
    cmdclass=commands,
    package_data={"docbm": ["py.typed"] + (["libdocbm.so.0"] if BUNDLED else [])},
)
