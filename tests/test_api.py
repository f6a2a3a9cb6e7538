"""The public API: every exported name resolves, lazily, and `import simulate` stays light."""

from __future__ import annotations

import inspect
import subprocess
import sys

import simulate as sim


def test_every_public_name_resolves_with_its_real_signature() -> None:
    for name in sim.__all__:
        value = getattr(sim, name)
        assert value is not None, name
        if inspect.isfunction(value):
            params = inspect.signature(value).parameters
            # load_variant takes the game's options as keywords; nothing takes bare *args
            assert not any(p.kind is p.VAR_POSITIONAL for p in params.values()), \
                f"{name} hides its parameters behind *args"
    assert sim.load_variant("hoffer").players == 4


def test_import_does_not_load_numba_or_pandas() -> None:
    code = "import simulate, sys; print('numba' in sys.modules, 'pandas' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "False"]


def test_version_comes_from_the_package_metadata() -> None:
    from importlib.metadata import version

    assert sim.__version__ == version("bidlab")
