"""examples/alphazero.py runs end to end at a tiny budget: distillation, self-play rounds on the
exported ONNX net, training, the evaluation table and the final matches."""

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "alphazero.py"


def test_alphazero_example_runs(tmp_path):
    pytest.importorskip(
        "torch",
        reason="torch is not installed: CI does not install it because the default wheel "
        "brings several GB of CUDA libraries",
    )
    pytest.importorskip("onnxruntime")
    pytest.importorskip("onnx")
    args = [
        "--minutes", "0.01", "--games", "2", "--simulations", "8", "--distil-games", "4",
        "--teacher-simulations", "16", "--distil-steps", "2", "--train-steps", "2",
        "--eval-every", "1", "--eval-games", "2", "--final-games", "2", "--channels", "8",
        "--blocks", "1", "--out", str(tmp_path),
    ]  # fmt: skip
    out = subprocess.run(
        [sys.executable, str(EXAMPLE), *args],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    ).stdout
    assert "distilled 4 games of MCTS at 16 playouts" in out
    assert "vs MCTS @ equal sims" in out
    assert "final net (round 1," in out
    assert (tmp_path / "net-1.onnx").exists()
