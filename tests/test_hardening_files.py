"""Files a careless user or an attacker hands the package: self-play data that is damaged,
inconsistent or a zip bomb, config files that are huge or not files at all, and outputs that
already exist. Every bad file is a ValueError naming it; no command destroys a file it was not
asked to replace, or writes anything before its output paths are checked."""

from __future__ import annotations

import dataclasses
import io
import json
import os
import subprocess
import sys
import textwrap
import tracemalloc
import zipfile

import numpy as np
import pytest

import pingvinas as pv
from pingvinas import cli

# --------------------------------------------------------------------------- SelfPlayData.load


@pytest.fixture(scope="module")
def data():
    return pv.selfplay(pv.Fish(), games=1, simulations=4, seed=2)


def arrays_of(data):
    return {f.name: getattr(data, f.name) for f in dataclasses.fields(data)}


def test_load_finds_what_save_wrote_under_the_same_name(tmp_path, data):
    data.save(tmp_path / "run2")
    assert (tmp_path / "run2.npz").exists()
    assert pv.SelfPlayData.load(tmp_path / "run2") == data
    assert pv.SelfPlayData.load(str(tmp_path / "run2")) == data
    assert pv.SelfPlayData.load(tmp_path / "run2.npz") == data
    with pytest.raises(FileNotFoundError):
        pv.SelfPlayData.load(tmp_path / "run3")


def test_load_round_trips_an_empty_run(tmp_path):
    empty = pv.selfplay(pv.Marathon(), games=0, simulations=4)
    empty.save(tmp_path / "empty.npz")
    back = pv.SelfPlayData.load(tmp_path / "empty.npz")
    assert back == empty and len(back) == 0


def _damaged(tmp_path, data):
    """Malformed files, by what is wrong with them."""
    good = tmp_path / "good.npz"
    data.save(good)
    raw = good.read_bytes()
    files = {
        "empty": b"",
        "truncated": raw[: len(raw) // 2],
        "cut after the header": raw[:200],
        "text": b"hello, world\n" * 10,
    }
    buf = io.BytesIO()
    np.save(buf, data.returns)
    files["npy"] = buf.getvalue()
    out = {}
    for name, content in files.items():
        path = tmp_path / f"{name.replace(' ', '-')}.npz"
        path.write_bytes(content)
        out[name] = path
    return out


def test_load_refuses_damaged_files_with_a_value_error(tmp_path, data):
    for path in _damaged(tmp_path, data).values():
        with pytest.raises(ValueError, match=str(path.name)):
            pv.SelfPlayData.load(path)


def test_load_refuses_a_corrupted_member(tmp_path, data):
    good = tmp_path / "good.npz"
    data.save(good)
    raw = bytearray(good.read_bytes())
    at = raw.index(b"observations.npy") + 200  # inside the first array's data
    raw[at : at + 16] = b"\xff" * 16
    bad = tmp_path / "flipped.npz"
    bad.write_bytes(bytes(raw))
    with pytest.raises(ValueError, match="flipped"):
        pv.SelfPlayData.load(bad)  # zipfile's CRC check


@pytest.mark.parametrize(
    "change, words",
    [
        (lambda a: a.update(returns=a["returns"].astype(str)), "array returns is <U"),
        (lambda a: a.update(returns=a["returns"].astype(np.float64)), "returns is float64"),
        (lambda a: a.update(to_move=a["to_move"][:-1]), "samples in to_move"),
        (lambda a: a.update(policies=a["policies"][:, :-1]), "differ in shape"),
        (lambda a: a.update(observations=a["observations"][0]), "with 4 dimensions"),
        (lambda a: a.update(to_move=a["to_move"] + 5), "to_move holds players outside"),
        (lambda a: a.pop("game_ids"), "no \\['game_ids'\\]"),
        (
            lambda a: a.update(game_ids=np.array(["x"] * len(a["game_ids"]), dtype=object)),
            "game_ids",
        ),
    ],
)
def test_load_checks_dtypes_shapes_and_lengths(tmp_path, data, change, words):
    arrays = arrays_of(data)
    change(arrays)
    path = tmp_path / "bad.npz"
    np.savez(path, **arrays)
    with pytest.raises(ValueError, match=words):
        pv.SelfPlayData.load(path)


def test_load_bounds_what_it_decompresses(tmp_path, data):
    # A zip bomb: 64 MiB of zeros in a few kilobytes, refused from the size the zip declares,
    # before any of it is decompressed.
    arrays = arrays_of(data)
    arrays["observations"] = np.zeros((1 << 22, 1, 2, 2), np.float32)
    arrays["to_move"] = np.zeros(1 << 22, np.int8)
    path = tmp_path / "bomb.npz"
    np.savez_compressed(path, **arrays)
    assert path.stat().st_size < 1 << 20
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match="more than max_bytes"):
            pv.SelfPlayData.load(path, max_bytes=1 << 20)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20
    assert pv.learn.selfplay.MAX_LOAD_BYTES == 1 << 30
    with pytest.raises(ValueError, match="max_bytes"):
        pv.SelfPlayData.load(path, max_bytes=-1)


def test_load_does_not_trust_the_shape_a_header_declares(tmp_path, data):
    # A member whose .npy header claims 2**40 rows but holds a few bytes: numpy would allocate
    # the shape first.
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        header, {"descr": "<i8", "fortran_order": False, "shape": (1 << 40,)}
    )
    path = tmp_path / "claims.npz"
    np.savez(path, **{k: v for k, v in arrays_of(data).items() if k != "game_ids"})
    with zipfile.ZipFile(path, "a") as z:
        z.writestr("game_ids.npy", header.getvalue() + b"\0" * 64)
    with pytest.raises(ValueError, match="does not match"):
        pv.SelfPlayData.load(path)
