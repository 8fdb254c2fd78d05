"""The TOML fleet file and -n sources."""

from __future__ import annotations

import pytest

from mqadmin.admin.errors import BadNameServerAddress
from mqadmin.fleet.fleetfile import FleetFileError, Source, load_fleet_file, source_from_option


def test_fleet_file_entries_become_named_sources(tmp_path):
    f = tmp_path / "fleet.toml"
    f.write_text(
        '[clusters.prod-a]\nnamesrv = ["10.0.0.1:9876", "10.0.0.2:9876"]\n\n'
        '[clusters.prod-b]\nnamesrv = "10.1.0.1:9876;10.1.0.2:9876"\n'
    )
    assert load_fleet_file(f) == [
        Source("prod-a", ("10.0.0.1:9876", "10.0.0.2:9876")),
        Source("prod-b", ("10.1.0.1:9876", "10.1.0.2:9876")),
    ]
    assert load_fleet_file(f)[0].namesrv_arg == "10.0.0.1:9876;10.0.0.2:9876"


def test_option_source_is_named_by_its_normalised_addresses():
    assert source_from_option(" 127.0.0.1:9876 ; 127.0.0.2:9876 ") == Source(
        "127.0.0.1:9876;127.0.0.2:9876", ("127.0.0.1:9876", "127.0.0.2:9876")
    )
    with pytest.raises(BadNameServerAddress):
        source_from_option("nohost")


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("not = [toml", "not valid TOML"),
        ("", "names no clusters"),
        ("[other]\nx = 1\n", "unknown top-level key(s) other"),
        ("[clusters.a]\nnamesrv = []\n", "[clusters.a]: namesrv must be a non-empty list"),
        ("[clusters.a]\nnamesrv = [1]\n", "namesrv must be a non-empty list of host:port strings"),
        ('[clusters.a]\nnamesrv = ["h:1"]\nnamsrv = ["x"]\n', "unknown key(s) namsrv"),
        ('[clusters.a]\nnamesrv = ["nohost"]\n', "bad name server address 'nohost'"),
        ("[clusters]\na = 1\n", "[clusters.a] must be a table"),
    ],
)
def test_bad_fleet_files_name_the_problem(tmp_path, text, fragment):
    f = tmp_path / "fleet.toml"
    f.write_text(text)
    with pytest.raises(FleetFileError) as e:
        load_fleet_file(f)
    assert fragment in str(e.value) and str(f) in str(e.value)
