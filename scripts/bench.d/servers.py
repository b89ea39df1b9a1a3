"""Real git servers on 127.0.0.1 for scripts that drive Concord from outside (the bench; the
airplane-mode simulation can import it too): `git daemon`, OpenSSH's `sshd` and an HTTPS git
server (lighttpd + `git http-backend`, basic authentication, a certificate from an authority made
for the run). Each is started on a free port, made for one folder of repositories, and stopped by
its PID (`stop()`, also on `with`). Nothing here touches the user's own ~/.ssh or CA store.

    with servers.SSHServer(base, folder) as server:
        env = {**os.environ, **server.concord_env()}          # HOME with the key and known_hosts
        url = server.url("cloud.git")                         # ssh://127.0.0.1:PORT/BASE/cloud.git
        git_env = {**os.environ, **server.git_env()}          # GIT_SSH_COMMAND with the same key

Each server class has the same surface: url(relative path) for Concord, git_url(relative path)
for the git CLI (an https URL with the user and password in it), concord_env() and git_env() (the
variables each tool needs: HOME, SSL_CERT_FILE, GIT_SSH_COMMAND, GIT_SSL_CAINFO), make_bare(relative
path) and stop(). `concord_env()` of the HTTPS server gives the credentials in
CONCORD_CLOUD_USERNAME / CONCORD_CLOUD_PASSWORD: set them for `init` and `clone` (Concord stores
them in .git/concord/credentials); `store_credentials(device, url)` writes that store directly for a
device whose origin URL was changed by hand.
"""
from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def can_connect(port: int) -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        return s.connect_ex(("127.0.0.1", port)) == 0


def run(argv, env=None) -> str:
    p = subprocess.run(list(map(str, argv)), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, argv))} exited {p.returncode}: {p.stdout.decode(errors='replace')[-2000:]}")
    return p.stdout.decode(errors="replace")


def make_bare(path: Path) -> None:
    """An empty bare repository with `main` as HEAD that takes pushes over every transport."""
    run(["git", "init", "--quiet", "--bare", "--initial-branch=main", path])
    run(["git", "-C", path, "config", "http.receivepack", "true"])


class Server:
    """A process started for the run and stopped by its PID."""

    base: Path
    port: int
    process: subprocess.Popen | None = None

    def _start(self, argv, log: Path, what: str, ready=None) -> None:
        with open(log, "ab") as out:
            # restore_signals (the default) gives the child default signal handling and mask.
            self.process = subprocess.Popen(list(map(str, argv)), stdin=subprocess.DEVNULL, stdout=out, stderr=out)
        ready = ready or (lambda: can_connect(self.port))
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if ready():
                return
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        self.stop()
        raise RuntimeError(f"{what} did not start (see {log})")

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(3)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.stop()

    def make_bare(self, relative: str) -> Path:
        path = self.base / relative
        make_bare(path)
        return path

    def git_url(self, relative: str) -> str:
        return self.url(relative)

    def concord_env(self) -> dict:
        return {}

    def git_env(self) -> dict:
        return {}

    def url(self, relative: str) -> str:
        raise NotImplementedError


class GitDaemon(Server):
    """`git daemon` serving the repositories below `base`, read and write."""

    def __init__(self, base: Path, folder: Path, port: int | None = None):
        self.base, self.port = Path(base).resolve(), port or free_port()
        folder = Path(folder)
        folder.mkdir(parents=True, exist_ok=True)
        self._start(["git", "daemon", "--export-all", "--enable=receive-pack", "--reuseaddr", f"--base-path={self.base}",
                     "--listen=127.0.0.1", f"--port={self.port}", self.base], folder / "daemon.log", "git daemon")

    def url(self, relative: str) -> str:
        return f"git://127.0.0.1:{self.port}/{relative}"


class SSHServer(Server):
    """OpenSSH's sshd with a host key and a user key made for it; `home` (for HOME) holds the user
    key as ~/.ssh/id_ed25519 and the host in ~/.ssh/known_hosts as [127.0.0.1]:PORT. Logs in as
    the user running the script; repositories are addressed by absolute path."""

    def __init__(self, base: Path, folder: Path, port: int | None = None):
        self.base, self.folder, self.port = Path(base).resolve(), Path(folder).resolve(), port or free_port()
        self.home = self.folder / "home"
        (self.home / ".ssh").mkdir(parents=True, exist_ok=True)
        self.key = self.home / ".ssh" / "id_ed25519"
        for path in (self.folder / "host_key", self.key):
            if not path.exists():
                run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "concord-bench", "-f", path])
        host_key = " ".join((self.folder / "host_key.pub").read_text().split()[:2])
        shutil.copy(f"{self.key}.pub", self.folder / "authorized_keys")
        (self.home / ".ssh" / "known_hosts").write_text(f"[127.0.0.1]:{self.port} {host_key}\n")
        Path("/run/sshd").mkdir(parents=True, exist_ok=True)  # sshd's privilege separation folder
        config = self.folder / "sshd_config"
        config.write_text("\n".join([
            f"Port {self.port}", "ListenAddress 127.0.0.1", f"HostKey {self.folder / 'host_key'}",
            f"AuthorizedKeysFile {self.folder / 'authorized_keys'}", "PidFile none", "UsePAM no", "StrictModes no",
            "PasswordAuthentication no", "KbdInteractiveAuthentication no", "PermitRootLogin prohibit-password",
            "AllowTcpForwarding no", "X11Forwarding no", "MaxStartups 100", "LogLevel VERBOSE",
            # sshd runs each command through the user's shell; bash then reads ~/.bashrc when it
            # is the first shell (SHLVL unset). Set, the command starts as on a git host's account,
            # without this machine's own start-up (pyenv in root's .bashrc here: 80 ms a session).
            "SetEnv SHLVL=1", ""]))
        self._start(["/usr/sbin/sshd", "-D", "-e", "-f", config], self.folder / "sshd.log", "sshd")

    def url(self, relative: str) -> str:
        return f"ssh://127.0.0.1:{self.port}{self.base / relative}"

    def concord_env(self) -> dict:
        # Concord keeps its ssh connections' sockets below XDG_RUNTIME_DIR: a private folder of
        # the run's, short enough for a socket's name.
        runtime = Path(f"/tmp/concord-bench-ssh-{self.port}")
        runtime.mkdir(mode=0o700, exist_ok=True)
        return {"HOME": str(self.home), "SSH_AUTH_SOCK": "", "CONCORD_SSH_KEY": "", "XDG_RUNTIME_DIR": str(runtime)}

    def stop(self) -> None:
        # The connections it serves end with it (their clients' kept connections close), with
        # SIGTERM: each ends the commands it runs in their own time.
        children = Path(f"/proc/{self.process.pid}/task/{self.process.pid}/children") if self.process else None
        serving = [int(pid) for pid in children.read_text().split()] if children and children.exists() else []
        super().stop()
        for pid in serving:
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        shutil.rmtree(f"/tmp/concord-bench-ssh-{self.port}", ignore_errors=True)

    def sessions(self) -> int:
        """The sessions (commands run) sshd started so far, from its log (LogLevel VERBOSE)."""
        log = self.folder / "sshd.log"
        return sum(line.startswith("Starting session: ") for line in log.read_text(errors="replace").splitlines()) if log.exists() else 0

    def git_env(self) -> dict:
        return {"GIT_SSH_COMMAND": f"ssh -i {self.key} -o IdentitiesOnly=yes -o BatchMode=yes "
                                   f"-o UserKnownHostsFile={self.home / '.ssh' / 'known_hosts'} -o StrictHostKeyChecking=yes"}


class HTTPSServer(Server):
    """lighttpd running `git http-backend` for the repositories below `base`, behind basic
    authentication (one user), with a certificate for `localhost` signed by an authority made
    for the run (`authority`, for SSL_CERT_FILE / GIT_SSL_CAINFO)."""

    user, password = "bench", "bench-s3cret"

    def __init__(self, base: Path, folder: Path, port: int | None = None):
        self.base, self.folder, self.port = Path(base).resolve(), Path(folder).resolve(), port or free_port()
        f = self.folder
        (f / "www").mkdir(parents=True, exist_ok=True)
        self.authority = f / "ca.pem"
        if not self.authority.exists():
            curve = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes"]
            run(["openssl", "req", "-x509", *curve, "-keyout", f / "ca.key", "-out", self.authority, "-days", "7",
                 "-subj", "/CN=Concord bench authority"])
            run(["openssl", "req", *curve, "-keyout", f / "server.key", "-out", f / "server.csr", "-subj", "/CN=localhost"])
            (f / "server.ext").write_text("subjectAltName=DNS:localhost\nextendedKeyUsage=serverAuth\n")
            run(["openssl", "x509", "-req", "-in", f / "server.csr", "-CA", self.authority, "-CAkey", f / "ca.key",
                 "-CAcreateserial", "-out", f / "server.pem", "-days", "7", "-extfile", f / "server.ext"])
        (f / "users").write_text(f"{self.user}:{self.password}\n")
        config = f / "lighttpd.conf"
        config.write_text("\n".join([
            f'server.document-root = "{f / "www"}"', f"server.port = {self.port}", 'server.bind = "127.0.0.1"',
            f'server.errorlog = "{f / "error.log"}"',
            'server.modules = ("mod_alias", "mod_auth", "mod_authn_file", "mod_cgi", "mod_setenv", "mod_openssl")',
            'ssl.engine = "enable"', f'ssl.pemfile = "{f / "server.pem"}"', f'ssl.privkey = "{f / "server.key"}"',
            'alias.url = ("/git" => "/usr/lib/git-core/git-http-backend")', 'cgi.assign = ("" => "")',
            f'setenv.add-environment = ("GIT_PROJECT_ROOT" => "{self.base}", "GIT_HTTP_EXPORT_ALL" => "1")',
            'auth.backend = "plain"', f'auth.backend.plain.userfile = "{f / "users"}"',
            'auth.require = ("/git" => ("method" => "basic", "realm" => "git", "require" => "valid-user"))', ""]))
        self._start(["/usr/sbin/lighttpd", "-D", "-f", config], f / "lighttpd.log", "lighttpd")

    def url(self, relative: str) -> str:
        return f"https://localhost:{self.port}/git/{relative}"

    def git_url(self, relative: str) -> str:
        return f"https://{self.user}:{self.password}@localhost:{self.port}/git/{relative}"

    def concord_env(self) -> dict:
        return {"SSL_CERT_FILE": str(self.authority), "CONCORD_CLOUD_USERNAME": self.user,
                "CONCORD_CLOUD_PASSWORD": self.password}

    def git_env(self) -> dict:
        return {"GIT_SSL_CAINFO": str(self.authority)}

    def store_credentials(self, device: Path, url: str) -> None:
        """Writes Concord's credentials store (0600) of a device whose origin is now `url`."""
        store = Path(device) / ".git" / "concord" / "credentials"
        store.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(store, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as out:
            json.dump({"url": url, "username": self.user, "password": self.password}, out)


SERVERS = {"daemon": GitDaemon, "ssh": SSHServer, "https": HTTPSServer}


def start(kind: str, base: Path, folder: Path, port: int | None = None) -> Server:
    """Starts the server for `kind` (daemon, ssh or https) serving the repositories below `base`
    on `port` (default: a free one). Starting again with the same `folder` and `port` after
    `stop()` brings the same server back (same keys, certificate and URLs): a cloud that went
    away and returned."""
    return SERVERS[kind](base, folder, port)
