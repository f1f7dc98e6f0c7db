"""The acoustic chain (which training applies) stands apart from how a build is planned."""
import subprocess
import sys


def test_the_acoustic_chain_loads_without_the_planner():
    code = ("import sys, reasonaudio.generation.acoustics.chain; "
            "print(sorted(m for m in sys.modules if m.startswith('reasonaudio.generation.tasks')))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "[]", loaded
