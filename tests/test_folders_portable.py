"""Loading a build needs no POSIX lock, and a run holds a folder on Windows (msvcrt) as it does with flock."""
import errno
import fcntl
import subprocess
import sys
import threading
import time
import types

import pytest

from reasonaudio_dataset.folders import held


def test_loading_imports_where_there_is_no_fcntl():
    code = ("import sys; sys.modules['fcntl'] = None; sys.modules['msvcrt'] = None\n"
            "import reasonaudio_dataset.folders, reasonaudio_dataset.loading\n"
            "from reasonaudio_dataset import load_reasonaudio\n"
            "print('imported')")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip() == "imported", done.stderr


@pytest.fixture
def windows(monkeypatch):
    """No fcntl, and an msvcrt whose byte locks are flocks on the whole file (the one byte locked is all a lock
    file is used for): what msvcrt.locking is called with, in order."""
    calls = []
    msvcrt = types.SimpleNamespace(LK_UNLCK=0, LK_NBLCK=2)

    def locking(handle, mode, nbytes):
        calls.append((mode, nbytes))
        if mode == msvcrt.LK_UNLCK:
            return fcntl.flock(handle, fcntl.LOCK_UN)
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise OSError(errno.EACCES, "Permission denied") from None

    msvcrt.locking = locking
    monkeypatch.setitem(sys.modules, "fcntl", None)
    monkeypatch.setitem(sys.modules, "msvcrt", msvcrt)
    return calls


def test_a_second_run_is_refused_at_once_on_windows(windows, tmp_path):
    with held(tmp_path):
        with pytest.raises(FileExistsError, match="^busy$"):
            with held(tmp_path, busy="busy"):
                pass
    assert windows == [(2, 1), (2, 1), (0, 1)]     # locked, refused, unlocked
    assert list(tmp_path.iterdir()) == []


def test_a_waiting_run_gets_the_folder_when_the_first_leaves_on_windows(windows, tmp_path):
    order = []

    def second():
        with held(tmp_path, wait=True):
            order.append("second holds it")

    with held(tmp_path):
        waiting = threading.Thread(target=second)
        waiting.start()
        time.sleep(1.0)
        order.append("first leaves")
    waiting.join(10)
    assert order == ["first leaves", "second holds it"]
    assert windows.count((0, 1)) == 2 and list(tmp_path.iterdir()) == []
