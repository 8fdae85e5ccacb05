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


@contextmanager
def pulse_server() -> Iterator[dict[str, str]]:
    """Start a private PulseAudio server; yields the environment its clients need."""
    folder = Path(tempfile.mkdtemp(prefix="narrator-pulse-"))
    runtime = folder / "run"
    runtime.mkdir(mode=0o700)
    (folder / "home").mkdir()
    (folder / "server.pa").write_text(SERVER_SCRIPT)
    (folder / "asound.conf").write_text(ALSA_DEVICES)
    env = {
        "XDG_RUNTIME_DIR": str(runtime),
        "PULSE_SERVER": f"unix:{runtime}/pulse/native",
        "ALSA_CONFIG_PATH": f"/usr/share/alsa/alsa.conf:{folder / 'asound.conf'}",
    }
    full = {**os.environ, **env, "HOME": str(folder / "home")}
    server = subprocess.Popen(
        [
            "pulseaudio",
            "-n",
            "-F",
            str(folder / "server.pa"),
            "--daemonize=no",
            "--exit-idle-time=-1",
            "--use-pid-file=no",
            f"--log-target=file:{folder / 'log'}",
        ],
        env=full,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 10
        while subprocess.run(["pactl", "info"], env=full, capture_output=True).returncode != 0:
            if time.monotonic() > deadline or server.poll() is not None:
                raise RuntimeError(f"PulseAudio did not start; see {folder / 'log'}")
            time.sleep(0.05)
        yield env
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=5)
        except subprocess.TimeoutExpired:
            server.kill()
        shutil.rmtree(folder, ignore_errors=True)
