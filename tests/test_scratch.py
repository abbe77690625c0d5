"""The scratch package of the extension tests (tests/scratch.py) never writes into the live
one: a fixture file written into it, even of the same name as a contributor's file in the
package, or into a folder the package reaches by a link (its ``conf``), lands in the copy."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from scratch import scratch_package, tree_digest


def live_tree(root: Path) -> Path:
    """A package laid out as anonlab's: its configs a link to a folder beside it, and a
    contributor's own ``methods/rounded_laplace.py`` and experiment already there."""
    package, conf = root / "pkg", root / "conf" / "experiment"
    (package / "methods" / "__pycache__").mkdir(parents=True)
    (package / "metrics").mkdir()
    conf.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "config.py").write_text("CONF = 'beside me'\n")
    (package / "methods" / "__init__.py").write_text("")
    (package / "methods" / "rounded_laplace.py").write_text("MINE = True\n")
    (package / "methods" / "__pycache__" / "base.cpython-311.pyc").write_bytes(b"compiled")
    (package / "metrics" / "sse.py").write_text("SSE = 1\n")
    (conf / "study.yaml").write_text("mine: true\n")
    (package / "conf").symlink_to(Path("..") / "conf")
    return package


def test_a_fixture_written_into_the_scratch_package_leaves_the_live_one(tmp_path):
    live = live_tree(tmp_path / "live")
    before = tree_digest(live)
    scratch = tmp_path / "scratch"
    receiving = {"methods": "rounded_laplace.py", "conf/experiment": "study.yaml"}
    scratch_package(live, scratch, receiving, copied={"config.py"})
    for folder, name in receiving.items():
        assert not (scratch / folder).is_symlink()
        (scratch / folder / name).write_text("FIXTURE = True\n")  # as shutil.copy writes
        assert (scratch / folder / name).resolve().is_relative_to(scratch)
    assert tree_digest(live) == before
    assert (live / "methods" / "rounded_laplace.py").read_text() == "MINE = True\n"
    assert (live / "conf" / "experiment" / "study.yaml").read_text() == "mine: true\n"
    # the folders that lead to them are real, all else links to the live files
    assert not (scratch / "conf").is_symlink() and (scratch / "metrics").is_symlink()
    assert (scratch / "config.py").is_file() and not (scratch / "config.py").is_symlink()
    assert (scratch / "__init__.py").resolve() == (live / "__init__.py").resolve()
    # a compiled file written over a linked one (as Python and Numba write, by renaming)
    # replaces the link, not the live file
    cached = scratch / "methods" / "__pycache__" / "base.cpython-311.pyc"
    assert cached.is_symlink()
    new = cached.with_name("new.tmp")
    new.write_bytes(b"recompiled")
    os.replace(new, cached)
    assert (live / "methods" / "__pycache__" / "base.cpython-311.pyc").read_bytes() == b"compiled"
    shutil.rmtree(scratch)
    assert tree_digest(live) == before


def test_the_digest_sees_a_changed_file(tmp_path):
    live = live_tree(tmp_path)
    before = tree_digest(live, ("methods", "conf/experiment"))
    (live / "conf" / "experiment" / "study.yaml").write_text("mine: false\n")
    assert tree_digest(live, ("methods", "conf/experiment")) != before
