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


def _write_npz(path, arrays, compression=zipfile.ZIP_STORED):
    """``arrays`` as ``np.savez`` writes them, with another compression."""
    with zipfile.ZipFile(path, "w", compression=compression) as z:
        for name, array in arrays.items():
            buf = io.BytesIO()
            np.save(buf, array)
            z.writestr(name + ".npy", buf.getvalue())


@pytest.mark.parametrize(
    "compression, words",
    [
        (zipfile.ZIP_LZMA, "a damaged .npz file"),
        (zipfile.ZIP_BZIP2, "a damaged .npz file"),
        (zipfile.ZIP_DEFLATED, "a damaged .npz file"),
        (None, "an encrypted .npz file"),
    ],
    ids=["lzma", "bzip2", "deflate", "encrypted"],
)
def test_load_refuses_damaged_compressed_and_encrypted_members(tmp_path, data, compression, words):
    path = tmp_path / "run.npz"
    _write_npz(path, arrays_of(data), compression or zipfile.ZIP_STORED)
    if compression is not None:
        assert pv.SelfPlayData.load(path) == data
    raw = bytearray(path.read_bytes())
    if compression is None:  # the encryption flag, in the member's two headers
        raw[raw.index(b"PK\x03\x04") + 6] |= 1
        raw[raw.index(b"PK\x01\x02") + 8] |= 1
    else:  # garbage inside the first member's compressed data
        at = raw.index(b"observations.npy") + len("observations.npy") + 40
        raw[at : at + 32] = b"\x55" * 32
    path.write_bytes(bytes(raw))
    with pytest.raises(ValueError, match=f"run.npz.*{words}"):
        pv.SelfPlayData.load(path)


def test_load_refuses_a_pipe_instead_of_waiting_for_it(tmp_path):
    fifo = tmp_path / "run.npz"
    os.mkfifo(fifo)
    code = textwrap.dedent(_CHILD.format(call="pv.SelfPlayData.load(sys.argv[1])"))
    proc = subprocess.run(
        [sys.executable, "-c", code, str(fifo)], capture_output=True, text=True, timeout=60
    )
    result = json.loads(proc.stdout.splitlines()[-1])
    assert result["error"] == "ValueError" and "not a regular file" in result["message"]
    with pytest.raises(ValueError, match="not a regular file"):
        pv.SelfPlayData.load(tmp_path)


def _declaring(path, data, rows):
    """``data`` saved with ``rows`` zero rows of observations instead (written in pieces,
    compressed: a small file declaring much)."""
    arrays = arrays_of(data)
    obs = arrays.pop("observations")
    row = np.zeros((1,) + obs.shape[1:], np.float32).tobytes()
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for name, array in arrays.items():
            buf = io.BytesIO()
            np.save(buf, array)
            z.writestr(name + ".npy", buf.getvalue())
        with z.open("observations.npy", "w", force_zip64=True) as f:
            np.lib.format.write_array_header_1_0(
                f, {"descr": "<f4", "fortran_order": False, "shape": (rows,) + obs.shape[1:]}
            )
            for _ in range(rows // 1024):
                f.write(row * 1024)
            f.write(row * (rows % 1024))
    return len(row) * rows


def test_load_finds_rows_that_differ_before_reading_any_data(tmp_path, data):
    path = tmp_path / "claims.npz"
    declared = _declaring(path, data, 1 << 14)  # 58 MB of zeros in a hundred kB
    assert declared > 50 << 20 and path.stat().st_size < 1 << 20
    tracemalloc.start()
    try:
        with pytest.raises(ValueError, match=f"{len(data)} samples in to_move, but"):
            pv.SelfPlayData.load(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1 << 20


def test_load_holds_the_data_once(tmp_path, data):
    # A file of many samples: reading it takes about the arrays' size, not twice that.
    arrays = {k: np.repeat(v, 60, axis=0) for k, v in arrays_of(data).items()}
    path = tmp_path / "big.npz"
    np.savez_compressed(path, **arrays)
    size = sum(a.nbytes for a in arrays.values())
    largest = max(a.nbytes for a in arrays.values())
    assert largest > 4 << 20
    del arrays
    tracemalloc.start()
    try:
        loaded = pv.SelfPlayData.load(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(loaded) == 60 * len(data)
    assert peak < size + largest // 2


# --------------------------------------------------------------------------- config files

_CHILD = """
import json, resource, sys
resource.setrlimit(resource.RLIMIT_AS, (3 << 30, 3 << 30))
import pingvinas as pv
try:
    {call}
    print(json.dumps({{"ok": True}}))
except Exception as e:
    print(json.dumps({{"error": type(e).__name__, "message": str(e)}}))
"""


@pytest.mark.parametrize(
    "call",
    [
        "pv.Fish.from_config(sys.argv[1])",
        "pv.Marathon.from_config(sys.argv[1])",
        "pv.load_game(sys.argv[1])",
    ],
)
def test_a_huge_config_file_is_refused_before_it_is_read(tmp_path, call):
    big = tmp_path / "big.toml"
    with open(big, "wb") as f:
        f.truncate(1 << 30)  # a gigabyte (sparse: nothing is written)
    code = textwrap.dedent(_CHILD.format(call=call))
    proc = subprocess.run(
        [sys.executable, "-c", code, str(big)], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = json.loads(proc.stdout.splitlines()[-1])
    assert result["error"] == "ValueError", result
    assert str(big) in result["message"] and "more than a config may take" in result["message"]


def test_the_config_cap_is_the_same_for_every_reader(tmp_path):
    cap = pv.games.MAX_CONFIG_BYTES
    assert cap == 1 << 20
    text = '# padding\ngame = "fish"\nplayers = 2\npenguins = 1\nboard = [[1, 1], [1, 1]]\n'
    at_cap = tmp_path / "at-cap.toml"
    at_cap.write_text(text + "#" * (cap - len(text) - 1) + "\n")
    assert at_cap.stat().st_size == cap
    assert pv.load_game(at_cap).players == 2
    assert pv.Fish.from_config(str(at_cap)).players == 2
    over = tmp_path / "over.toml"
    over.write_text(text + "#" * (cap - len(text)) + "\n")
    for read in (pv.load_game, pv.Fish.from_config, pv.Marathon.from_config):
        with pytest.raises(ValueError, match="more than a config may take"):
            read(str(over))


@pytest.mark.parametrize(
    "path, words",
    [
        ("/dev/zero", "not a regular file"),
        (".", "a directory, not a config file"),
    ],
)
def test_a_config_that_is_not_a_file_says_what_it_is(path, words):
    for read in (pv.load_game, pv.Fish.from_config, pv.Marathon.from_config):
        with pytest.raises(ValueError, match=words):
            read(path)


def test_a_config_that_is_not_utf8_is_named(tmp_path):
    bad = tmp_path / "latin1.toml"
    bad.write_bytes('game = "fish"\n# caf\xe9\n'.encode("latin-1"))
    for read in (pv.load_game, pv.Fish.from_config):
        with pytest.raises(ValueError, match="latin1.toml.*not UTF-8"):
            read(str(bad))


def cli_run(capsys, *argv):
    """``pingvinas ARGV``: its exit code and stderr."""
    try:
        cli.main(list(argv))
        code = 0
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 1
        message = "" if isinstance(e.code, int) or e.code is None else f"{e.code}\n"
    else:
        message = ""
    out, err = capsys.readouterr()
    return code, out, err + message  # sys.exit("text") prints the text at exit


def test_the_cli_says_what_is_wrong_with_a_config_file(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "bad.bin").write_bytes(bytes(range(256)))
    for argv in (
        ["match", "--game", "/dev/zero"],
        ["bench", "--game", "bad.bin"],
        ["serve", "--variant", "bad.bin"],
        ["serve", "--variant", "/dev/zero"],
    ):
        code, out, err = cli_run(capsys, *argv)
        assert code == 2, (argv, err)
        assert len(err.splitlines()) == 1 and "Traceback" not in err
        assert argv[-1] in err and "unknown variant" not in err and "no config file" not in err
        assert "not a regular file" in err or "not UTF-8" in err


# --------------------------------------------------------------------------- outputs


def test_match_save_refuses_an_existing_file_unless_asked(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    games = tmp_path / "games.jsonl"
    games.write_text("precious\n")
    argv = ["match", "--game", "fish-mini-4x4", "--games", "2", "--quiet", "--save", "games.jsonl"]
    code, out, err = cli_run(capsys, *argv)
    assert code == 1 and "games.jsonl exists" in err and "--append" in err and "--force" in err
    assert out == "" and games.read_text() == "precious\n"  # refused before any game
    games.write_text("")
    code, out, err = cli_run(capsys, *argv, "--append")
    assert code == 0, err
    code, out, err = cli_run(capsys, *argv, "--append")
    assert code == 0, err
    assert len(pv.record.read_jsonl(games)) == 4
    code, out, err = cli_run(capsys, *argv, "--force")
    assert code == 0, err
    assert len(pv.record.read_jsonl(games)) == 2
    assert sorted(os.listdir(tmp_path)) == ["games.jsonl"]  # no temporary file left


@pytest.mark.parametrize(
    "save, words",
    [
        (".", "a directory, not a file"),
        ("missing/games.jsonl", "missing does not exist"),
        ("/dev/null", "not a regular file"),
    ],
)
def test_match_save_checks_the_path_before_any_game(capsys, tmp_path, monkeypatch, save, words):
    monkeypatch.chdir(tmp_path)
    argv = ["match", "--game", "fish-mini-4x4", "--games", "2", "--quiet", "--save", save]
    code, out, err = cli_run(capsys, *argv, "--force")
    assert code == 1 and words in err and out == "", err
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert os.listdir(tmp_path) == []


_STOPPED_MATCH = """
import os, signal, threading, time, sys
from pingvinas import cli
# Ctrl-C while the first game's first search runs.
threading.Timer(1.0, lambda: os.kill(os.getpid(), signal.SIGINT)).start()
cli.main(sys.argv[1:])
"""


@pytest.mark.parametrize("force", [False, True])
def test_match_stopped_before_the_first_game_leaves_no_file(tmp_path, force):
    save = tmp_path / "games.jsonl"
    if force:
        save.write_text("precious\n")
    argv = ["match", "--agents", "mcts", "mcts", "--time", "60", "--games", "1", "--quiet"]
    argv += ["--save", str(save)] + (["--force"] if force else [])
    proc = subprocess.run(
        [sys.executable, "-c", _STOPPED_MATCH, *argv],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 130, proc.stderr[-2000:]
    assert "no game finished" in proc.stderr
    # No 0-byte file: the file that was there, or none; no temporary file either.
    assert os.listdir(tmp_path) == (["games.jsonl"] if force else [])
    if force:
        assert save.read_text() == "precious\n"


def test_play_match_writes_the_save_file_whole(tmp_path):
    from pingvinas.playing.match import play_match

    save = tmp_path / "games.jsonl"
    save.write_text("old\n")
    result = play_match(
        pv.Fish.variant("fish-mini-4x4"), ["greedy", "random"], games=2, progress=False, save=save
    )
    assert result.games == 2 and len(pv.record.read_jsonl(save)) == 2
    play_match(
        pv.Fish.variant("fish-mini-4x4"),
        ["greedy", "random"],
        games=2,
        progress=False,
        save=save,
        append=True,
    )
    assert len(pv.record.read_jsonl(save)) == 4
    assert os.listdir(tmp_path) == ["games.jsonl"]
    with pytest.raises(ValueError, match="append"):
        play_match(pv.Fish(), ["greedy", "random"], games=1, progress=False, append=True)


def test_show_picture_refuses_an_existing_file_unless_asked(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    state = pv.Fish().new_state(seed=1).to_json()
    picture = tmp_path / "p.svg"
    picture.write_text("precious")
    code, out, err = cli_run(capsys, "show", state, "--svg", "p.svg")
    assert code == 1 and "p.svg exists: --force replaces it" in err
    assert picture.read_text() == "precious"
    code, out, err = cli_run(capsys, "show", state, "--png", "p.svg")
    assert code == 1 and "p.svg exists" in err and picture.read_text() == "precious"
    code, out, err = cli_run(capsys, "show", state, "--svg", "p.svg", "--force")
    assert code == 0, err
    assert picture.read_text().startswith("<svg")
    assert sorted(os.listdir(tmp_path)) == ["p.svg"]


def test_play_save_refuses_a_file_it_did_not_write(tmp_path):
    from pingvinas.console import play

    precious = tmp_path / "precious.json"
    precious.write_text("precious")
    mine = tmp_path / "mine.json"
    typed = [f"save {precious}", f"save {mine}", "a1", f"save {mine}", f"save! {precious}", "quit"]
    out = io.StringIO()
    game = pv.Fish.variant("fish-mini-4x4")
    play(game, [None, pv.GreedyAgent(seed=1)], stdin=io.StringIO("\n".join(typed) + "\n"), out=out)
    text = out.getvalue()
    assert f"not saved: {precious} exists: save! {precious} replaces it" in text
    assert text.count("saved the game") == 3
    # mine.json was replaced by the same game's save (a move later); precious by save!.
    assert len(pv.GameRecord.read(mine)) >= 1
    assert pv.GameRecord.read(precious) == pv.GameRecord.read(mine)


def test_solve_table_checks_its_outputs_before_any_work(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = cli_run(capsys, "solve", "--table", "--quiet", "--out", "/nonexistent/x.md")
    assert code == 1 and "/nonexistent does not exist" in err
    assert os.listdir(tmp_path) == []  # the default --img was not written here
    page, img = tmp_path / "page.md", tmp_path / "map.svg"
    for existing in (page, img):
        existing.write_text("precious")
        code, out, err = cli_run(
            capsys, "solve", "--table", "--quiet", "--out", str(page), "--img", str(img)
        )
        assert code == 1 and f"{existing} exists: --force replaces it" in err
        assert existing.read_text() == "precious"
        existing.unlink()
    assert os.listdir(tmp_path) == []


def test_write_table_checks_its_outputs_before_any_work(tmp_path):
    from pingvinas.solved.table import write_table

    with pytest.raises(ValueError, match="does not exist"):
        write_table(out=str(tmp_path / "no" / "page.md"), img=str(tmp_path / "map.svg"))
    (tmp_path / "file").write_text("")
    with pytest.raises(ValueError, match="not a directory"):
        write_table(out=str(tmp_path / "page.md"), img=str(tmp_path / "file" / "img" / "map.svg"))
    assert sorted(os.listdir(tmp_path)) == ["file"]


@pytest.mark.parametrize(
    "out, words",
    [
        ("precious.txt", "precious.txt: a file, not a directory"),
        ("precious.txt/sub", "precious.txt is not a directory"),
        ("/proc/x", "cannot write /proc/x"),
        ("run", "run already holds log.jsonl, net.safetensors: --force replaces"),
    ],
)
def test_train_out_is_checked_before_anything(capsys, tmp_path, monkeypatch, out, words):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "precious.txt").write_text("precious")
    (tmp_path / "run").mkdir()
    (tmp_path / "run" / "log.jsonl").write_text("an earlier run")
    (tmp_path / "run" / "net.safetensors").write_text("its net")
    code, stdout, err = cli_run(capsys, "train", "--out", out, "--generations", "1")
    assert code == 1 and words in err, err
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert sorted(os.listdir(tmp_path)) == ["precious.txt", "run"]
    assert (tmp_path / "run" / "log.jsonl").read_text() == "an earlier run"


def test_train_without_jax_writes_nothing(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setitem(sys.modules, "jax", None)  # import jax raises ImportError
    code, out, err = cli_run(capsys, "train", "--out", "new/run", "--generations", "1")
    assert code == 1 and "JAX" in err
    code, out, err = cli_run(capsys, "train", "--kind", "nnue", "--out", "new/run")
    assert code == 1 and "JAX" in err
    assert os.listdir(tmp_path) == []


def test_written_files_replace_whole_or_not_at_all(tmp_path):
    from pingvinas import _files

    path = tmp_path / "out.txt"
    path.write_text("old")
    path.chmod(0o640)
    with pytest.raises(RuntimeError):
        with _files.replacing(path) as f:
            f.write("half")
            raise RuntimeError("stopped")
    assert path.read_text() == "old" and os.listdir(tmp_path) == ["out.txt"]
    _files.write_text(path, "new")
    assert path.read_text() == "new" and (path.stat().st_mode & 0o777) == 0o640
    link = tmp_path / "link.txt"
    link.symlink_to(path)
    _files.write_text(link, "through the link")
    assert link.is_symlink() and path.read_text() == "through the link"
    record = pv.GameRecord(pv.Fish(), seed=1)
    record.write(tmp_path / "record.json")
    assert pv.GameRecord.read(tmp_path / "record.json") == record
    assert sorted(os.listdir(tmp_path)) == ["link.txt", "out.txt", "record.json"]


def test_ladder_out_is_checked_before_any_game(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "precious.txt").write_text("precious")
    (tmp_path / "l").mkdir()
    (tmp_path / "l" / "ladder.md").write_text("an earlier ladder")
    argv = ["ladder", "--game", "fish-mini-4x4", "--agents", "random", "greedy", "--games", "2"]
    for out, words in (
        ("precious.txt", "a file, not a directory"),
        ("precious.txt/l", "is not a directory"),
        ("l", "l already holds ladder.md: --force replaces them"),
    ):
        code, stdout, err = cli_run(capsys, *argv, "--quiet", "--out", out)
        assert code == 1 and words in err and stdout == "", err
    assert (tmp_path / "l" / "ladder.md").read_text() == "an earlier ladder"
    code, stdout, err = cli_run(capsys, *argv, "--quiet", "--out", "l", "--force")
    assert code == 0, err
    assert sorted(os.listdir(tmp_path / "l")) == ["ladder.csv", "ladder.md", "ladder.svg"]


# --------------------------------------------------------------------------- net files


@pytest.mark.parametrize(
    "call",
    [
        "pv.evaluators.native(sys.argv[1])",
        "pv.play.nets.Net.load(sys.argv[1])",
        "pv._core.NnueNet.load(sys.argv[1])",
    ],
)
def test_a_device_is_no_net_file(call):
    # /dev/zero has no size to check: read, it would fill the memory.
    code = textwrap.dedent(_CHILD.format(call=call))
    proc = subprocess.run(
        [sys.executable, "-c", code, "/dev/zero"], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    result = json.loads(proc.stdout.splitlines()[-1])
    assert result["error"] == "ValueError", result
    assert "/dev/zero" in result["message"] and "not a regular file" in result["message"]


# --------------------------------------------------------------------------- whole or not at all

_LIMITED_MATCH = """
import resource, sys
from pingvinas import cli
limit = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))  # as `ulimit -f` does
cli.main(sys.argv[2:])
"""


def _limited_match(tmp_path, limit, *argv):
    """``pingvinas match`` in a child whose files may grow to ``limit`` bytes: its run."""
    return subprocess.run(
        [sys.executable, "-c", _LIMITED_MATCH, str(limit), "match", "--game", "fish-mini-4x4"]
        + ["--agents", "greedy", "random", "--quiet", *argv],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )


def test_an_append_that_fails_halfway_leaves_the_file_as_it_was(tmp_path):
    games = tmp_path / "games.jsonl"
    pv.play_match(
        pv.Fish.variant("fish-mini-4x4"), ["greedy", "random"], games=2, progress=False, save=games
    )
    before = games.read_bytes()
    # Room for part of one more record, not all of it.
    argv = ["--games", "4", "--save", "games.jsonl", "--append"]
    run = _limited_match(tmp_path, len(before) + 500, *argv)
    code, err = run.returncode, run.stderr
    assert code == 1 and "cannot write games.jsonl: File too large" in err, err
    assert games.read_bytes() == before
    # A later append goes on after whole records.
    pv.play_match(
        pv.Fish.variant("fish-mini-4x4"),
        ["greedy", "random"],
        games=2,
        progress=False,
        save=games,
        append=True,
    )
    assert len(pv.record.read_jsonl(games)) == 4 and os.listdir(tmp_path) == ["games.jsonl"]


def test_a_save_that_fails_keeps_whole_games_and_no_temporary_file(tmp_path):
    run = _limited_match(tmp_path, 3000, "--games", "4", "--save", "games.jsonl")
    assert run.returncode == 1 and "cannot write games.jsonl: File too large" in run.stderr
    assert "part" not in run.stderr  # the file asked for is named, not the temporary one
    assert os.listdir(tmp_path) == ["games.jsonl"]
    kept = pv.record.read_jsonl(tmp_path / "games.jsonl")
    assert 1 <= len(kept) < 4 and (tmp_path / "games.jsonl").read_bytes().endswith(b"\n")


def test_a_rename_that_fails_removes_the_temporary_file_and_names_the_file(tmp_path):
    from pingvinas import _files

    path = tmp_path / "out.txt"
    with pytest.raises(IsADirectoryError) as caught:
        with _files.replacing(path) as f:
            f.write("text")
            (path / "in the way").mkdir(parents=True)  # a directory takes the name meanwhile
    assert caught.value.filename == str(path)
    assert os.listdir(tmp_path) == ["out.txt"] and path.is_dir()


_TERMINATED_MATCH = """
import os, signal, sys, threading, time
from pingvinas import cli

def terminate():
    # SIGTERM, as `kill` sends it, once the match handles it and some games have finished.
    while signal.getsignal(signal.SIGTERM) in (signal.SIG_DFL, None):
        time.sleep(0.01)
    time.sleep(1.5)
    os.kill(os.getpid(), signal.SIGTERM)

threading.Thread(target=terminate, daemon=True).start()
cli.main(sys.argv[1:])
"""


@pytest.mark.parametrize("append", [False, True])
def test_sigterm_stops_a_match_and_keeps_its_finished_games(tmp_path, append):
    save = tmp_path / "games.jsonl"
    if append:
        game = pv.Fish.variant("fish-mini-4x4")
        pv.play_match(game, ["greedy", "random"], games=2, progress=False, save=save)
    argv = ["match", "--game", "fish-mini-4x4", "--agents", "greedy", "random", "--quiet"]
    argv += ["--games", "100000", "--save", str(save)] + (["--append"] if append else [])
    proc = subprocess.run(
        [sys.executable, "-c", _TERMINATED_MATCH, *argv],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 143, proc.stderr[-2000:]
    assert "pingvinas: stopped; kept the" in proc.stderr
    assert os.listdir(tmp_path) == ["games.jsonl"]  # no temporary file
    kept = pv.record.read_jsonl(save)
    assert 2 + append * 2 <= len(kept) < 100000
    assert f"kept the {len(kept) - 2 * append} finished game(s)" in proc.stderr


def test_ladder_refuses_a_directory_where_a_file_goes_before_any_game(capsys, tmp_path):
    (tmp_path / "l" / "ladder.svg").mkdir(parents=True)
    argv = ["ladder", "--game", "fish-mini-4x4", "--agents", "random", "greedy", "--games", "2"]
    code, stdout, err = cli_run(capsys, *argv, "--quiet", "--out", str(tmp_path / "l"), "--force")
    assert code == 1 and "ladder.svg: a directory, not a file" in err and stdout == "", err
    assert os.listdir(tmp_path / "l") == ["ladder.svg"]


# --------------------------------------------------------------------------- appending


def _meta_games(path):
    return [json.loads(line)["meta"]["game"] for line in path.read_text().splitlines()]


def test_appended_games_go_on_with_the_seed_sequence(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    argv = ["match", "--game", "fish-mini-4x4", "--agents", "greedy", "random", "--quiet"]
    code, out, err = cli_run(capsys, *argv, "--games", "6", "--save", "g.jsonl")
    assert code == 0, err
    code, out, err = cli_run(capsys, *argv, "--games", "3", "--save", "g.jsonl", "--append")
    assert code == 0 and "3 games (numbered from 6, after the games in g.jsonl)" in out, err
    code, out, err = cli_run(capsys, *argv, "--games", "2", "--save", "g.jsonl", "--append")
    assert code == 0, err
    # After game 8, a whole rotation on: 10 and 11 (game 9 would share game 8's deal).
    games = tmp_path / "g.jsonl"
    assert _meta_games(games) == [0, 1, 2, 3, 4, 5, 6, 7, 8, 10, 11]
    records = pv.record.read_jsonl(games)
    deals = [r.seed for r in records]
    # Each deal is played once from each seat (games 2k and 2k + 1), never again.
    assert deals[6] == deals[7] and deals[9] == deals[10]
    assert len(set(deals)) == 6 and deals[8] not in deals[:8]


@pytest.mark.parametrize(
    "content, words",
    [
        (b'{"moves": []}\n{"mov', "line 2: cut short"),
        (b"not json\n", "line 1: not JSON"),
    ],
)
def test_append_refuses_a_file_that_is_not_whole_records(capsys, tmp_path, content, words):
    games = tmp_path / "g.jsonl"
    games.write_bytes(content)
    argv = ["match", "--game", "fish-mini-4x4", "--agents", "greedy", "random", "--quiet"]
    code, out, err = cli_run(capsys, *argv, "--games", "2", "--save", str(games), "--append")
    assert code == 1 and words in err and "games" not in out, err
    assert games.read_bytes() == content


# --------------------------------------------------------------------------- benches/report.py

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPORT = os.path.join(ROOT, "benches", "report.py")
needs_report = pytest.mark.skipif(
    not os.path.exists(REPORT), reason="no benches/ beside the tests (an installed copy)"
)


@needs_report
@pytest.mark.parametrize(
    "out, force, words",
    [
        ("missing/perf.md", True, "missing does not exist"),
        ("perf.md", False, "perf.md exists: --force replaces it"),
        (".", True, "a directory, not a file"),
    ],
)
def test_report_checks_its_page_before_the_run(tmp_path, out, force, words):
    (tmp_path / "perf.md").write_text("precious")
    run = subprocess.run(
        [sys.executable, REPORT, "--quick", "--out", out] + (["--force"] if force else []),
        capture_output=True,
        text=True,
        timeout=60,  # the run itself takes minutes: the refusal comes first
        cwd=tmp_path,
    )
    assert run.returncode == 2 and words in run.stderr and "Traceback" not in run.stderr
    assert "Fish playouts" not in run.stderr  # no part ran
    assert sorted(os.listdir(tmp_path)) == ["perf.md"]
    assert (tmp_path / "perf.md").read_text() == "precious"


@needs_report
def test_report_writes_its_page_whole_or_not_at_all(tmp_path, monkeypatch):
    import importlib.util

    spec = importlib.util.spec_from_file_location("report_under_test", REPORT)
    report = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, spec.name, report)  # where its dataclasses look
    monkeypatch.setattr(sys, "path", list(sys.path))  # it adds benches/ to the path
    spec.loader.exec_module(report)
    page = tmp_path / "perf.md"
    page.write_text("precious")
    # The parts, instantly; one of them a line that cannot be written as UTF-8.
    for part in ("marathon_part", "vector_part", "overhead_part"):
        monkeypatch.setattr(report, part, lambda size: ["## Part", ""])
    monkeypatch.setattr(report, "search_part", lambda size, cargo: ["## Search", ""])
    monkeypatch.setattr(report, "strength_part", lambda size, seed: ["## Strength", "\ud800"])
    monkeypatch.setattr(report, "fish_playouts_part", lambda size, cargo: ["## Fish", ""])
    with pytest.raises(UnicodeEncodeError):
        report.main(["--quick", "--out", str(page), "--force"])
    assert page.read_text() == "precious" and os.listdir(tmp_path) == ["perf.md"]
    monkeypatch.setattr(report, "strength_part", lambda size, seed: ["## Strength", ""])
    assert report.main(["--quick", "--out", str(page), "--force"]) == 0
    assert page.read_text().startswith("# Performance\n")
