"""Config reading: OmegaConf's YAML rules on libyaml's parser give the same configs."""

from __future__ import annotations

from pathlib import Path

import hydra
import pytest
import yaml
from omegaconf import OmegaConf, _utils

from anonlab.config import CONF_DIR, _omegaconf_c_loader, load_yaml, omegaconf_on_libyaml

pytestmark = pytest.mark.skipif(not yaml.__with_libyaml__, reason="PyYAML without libyaml")

CONFIGS = sorted(CONF_DIR.rglob("*.yaml")) + sorted(
    (Path(hydra.__file__).parent / "conf").rglob("*.yaml")
)


def test_every_shipped_config_reads_the_same_on_either_parser():
    python_loader = _utils.get_yaml_loader()
    assert len(CONFIGS) > 40
    for path in CONFIGS:
        text = path.read_text()
        assert yaml.load(text, Loader=_omegaconf_c_loader()) == yaml.load(
            text, Loader=python_loader
        ), path


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("x: 1e-3", 1e-3),  # OmegaConf's float rule: YAML 1.1 alone reads a string
        ("x: 1_000.5", 1000.5),
        ("x: .inf", float("inf")),
        ("x: 2001-12-14", "2001-12-14"),  # no timestamps
        ("x: 0x1f", 31),
        ("x: 'a: b'", "a: b"),
    ],
)
def test_omegaconf_scalar_rules_hold_on_libyaml(text, value):
    assert yaml.load(text, Loader=_omegaconf_c_loader())["x"] == value
    assert yaml.load(text, Loader=_utils.get_yaml_loader())["x"] == value


def test_a_duplicate_key_is_refused_on_libyaml():
    with pytest.raises(yaml.constructor.ConstructorError, match="duplicate key a"):
        yaml.load("a: 1\nb: 2\na: 3\n", Loader=_omegaconf_c_loader())


def test_the_swap_holds_only_within_the_block(tmp_path):
    original = _utils.get_yaml_loader
    path = tmp_path / "c.yaml"
    path.write_text("a: {b: [1, 2.5e1]}\n")
    with omegaconf_on_libyaml():
        assert _utils.get_yaml_loader() is _omegaconf_c_loader()
        inside = OmegaConf.load(path)
    assert _utils.get_yaml_loader is original
    assert OmegaConf.to_container(inside) == {"a": {"b": [1, 25.0]}}
    assert load_yaml(path.read_text()) == {"a": {"b": [1, "2.5e1"]}}  # plain YAML 1.1
