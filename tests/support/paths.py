"""Where the checkout's files are: its root, the example blueprints and the golden output."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BLUEPRINTS = ROOT / "blueprints"
GOLDEN = ROOT / "golden"
