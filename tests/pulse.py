"""Real audio devices on a machine with no sound card: a private PulseAudio server.

Null devices per the project's notes: the program plays to the default sink
``speaker``; a test records what was played from ``speaker_mon`` (the monitor)
and speaks into the default microphone by playing to ``micfeed``. PortAudio
reaches them through ALSA's pulse plugin (libasound2-plugins).
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

SERVER_SCRIPT = """\
load-module module-native-protocol-unix auth-anonymous=1
load-module module-null-sink sink_name=speaker rate=48000 channels=2
load-module module-null-source source_name=silence rate=48000 channels=1 max_latency_msec=20
load-module module-virtual-source source_name=mic master=silence uplink_sink=micfeed
set-default-sink speaker
set-default-source mic
"""

ALSA_DEVICES = """\
pcm.!default { type pulse }
ctl.!default { type pulse }
pcm.speaker_mon { type pulse device speaker.monitor hint { show on description "what was played" } }
pcm.micfeed { type pulse device micfeed hint { show on description "microphone feed" } }
"""


def missing_tools() -> str | None:
    for tool in ("pulseaudio", "pactl"):
        if shutil.which(tool) is None:
            return f"{tool} is not installed (scripts/setup.sh installs pulseaudio)"
    return None


class PulseServer:
    """A private PulseAudio server that a test may stop and start again.

    It keeps its folder, so a restarted server listens on the same socket and the
    program under test finds it again with the environment it already has.
    """

    def __init__(self) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="narrator-pulse-"))
        runtime = self.folder / "run"
        runtime.mkdir(mode=0o700)
        (self.folder / "home").mkdir()
        (self.folder / "server.pa").write_text(SERVER_SCRIPT)
        (self.folder / "asound.conf").write_text(ALSA_DEVICES)
        self.env = {
            "XDG_RUNTIME_DIR": str(runtime),
            "PULSE_SERVER": f"unix:{runtime}/pulse/native",
            "ALSA_CONFIG_PATH": f"/usr/share/alsa/alsa.conf:{self.folder / 'asound.conf'}",
        }
        self._full = {**os.environ, **self.env, "HOME": str(self.folder / "home")}
        self._process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        """Start the server and wait until it answers."""
        log = self.folder / "log"
        self._process = subprocess.Popen(
            [
                "pulseaudio",
                "-n",
                "-F",
                str(self.folder / "server.pa"),
                "--daemonize=no",
                "--exit-idle-time=-1",
                "--use-pid-file=no",
                f"--log-target=file:{log}",
            ],
            env=self._full,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 10
        while not self.answers():
            if time.monotonic() > deadline or self._process.poll() is not None:
                raise RuntimeError(f"PulseAudio did not start; see {log}")
            time.sleep(0.05)

    def answers(self) -> bool:
        done = subprocess.run(["pactl", "info"], env=self._full, capture_output=True)
        return done.returncode == 0

    def pactl(self, *args: str) -> str:
        """Run pactl against this server; its output."""
        done = subprocess.run(
            ["pactl", *args], env=self._full, capture_output=True, text=True, check=True
        )
        return done.stdout

    def stop(self) -> None:
        """Stop the server (its own process, by its PID) and wait for it to end."""
        process, self._process = self._process, None
        if process is None:
            return
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=5)

    def exited(self) -> bool:
        """After ``pactl exit``: whether the process has ended (it is then reaped)."""
        if self._process is None or self._process.poll() is None:
            return False
        self._process = None
        return True

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)


@contextmanager
def pulse_server() -> Iterator[dict[str, str]]:
    """Start a private PulseAudio server; yields the environment its clients need."""
    server = PulseServer()
    try:
        server.start()
        yield server.env
    finally:
        server.close()


def _restart_portaudio() -> None:
    """Make PortAudio scan the devices again (it reads them once, at start).

    A test that failed half-way may leave a game thread with an open stream, and then
    Pa_Terminate can block for good: it runs on a thread of its own, and a session whose
    PortAudio cannot be restarted goes on with the old one rather than hanging.
    """
    import sounddevice

    done = threading.Event()

    def restart() -> None:
        sounddevice._terminate()
        sounddevice._initialize()
        done.set()

    threading.Thread(target=restart, name="portaudio-restart", daemon=True).start()
    if not done.wait(60):
        import warnings

        warnings.warn(
            "PortAudio did not restart (a stream left open by a failed test?)", stacklevel=2
        )


@contextmanager
def portaudio_on(env: dict[str, str]) -> Iterator[None]:
    """This process's PortAudio talks to the server of ``env`` until the block ends."""
    saved = {key: os.environ.get(key) for key in env}
    os.environ.update(env)
    _restart_portaudio()
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        _restart_portaudio()
