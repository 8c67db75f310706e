"""A throwaway InfluxDB 1.x server for tests: `influxd` from the Debian package `influxdb`,
started on free loopback ports with a temporary config and data directory, HTTP and one UDP
listener, stopped and removed afterwards. Standard library only."""

import json
import os
import shutil
import socket
import subprocess
import tempfile
import time
import urllib.parse
import urllib.request

CONFIG = """reporting-disabled = true
bind-address = "127.0.0.1:{rpc}"
[meta]
  dir = "{dir}/meta"
[data]
  dir = "{dir}/data"
  wal-dir = "{dir}/wal"
  query-log-enabled = false
[http]
  enabled = true
  bind-address = "127.0.0.1:{http}"
  log-enabled = false
[[udp]]
  enabled = true
  bind-address = "127.0.0.1:{udp}"
  database = "{udp_db}"
  batch-timeout = "100ms"
[monitor]
  store-enabled = false
[continuous_queries]
  enabled = false
"""


def free_port(kind=socket.SOCK_STREAM):
    with socket.socket(socket.AF_INET, kind) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def available():
    return shutil.which("influxd") is not None


class InfluxServer:
    """`with InfluxServer(tmp) as ix:` starts influxd and waits until it answers."""

    def __init__(self, parent, udp_db="udp"):
        self.dir = tempfile.mkdtemp(prefix="influx-", dir=parent)
        self.http = free_port()
        self.udp = free_port(socket.SOCK_DGRAM)
        self.rpc = free_port()
        self.udp_db = udp_db
        self.proc = None

    def __enter__(self):
        conf = os.path.join(self.dir, "influxdb.conf")
        with open(conf, "w") as f:
            f.write(CONFIG.format(dir=self.dir, http=self.http, udp=self.udp, rpc=self.rpc,
                                  udp_db=self.udp_db))
        self.log = open(os.path.join(self.dir, "influxd.log"), "w")
        self.proc = subprocess.Popen(["influxd", "run", "-config", conf], stdout=self.log,
                                     stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen("http://127.0.0.1:%d/ping" % self.http, timeout=2):
                    break
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError("influxd did not start; see %s" % self.log.name)
                time.sleep(0.2)
        self.query("CREATE DATABASE %s" % self.udp_db, post=True)
        return self

    def __exit__(self, *exc):
        if self.proc and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    def query(self, q, db=None, post=False):
        """Runs an InfluxQL query; returns the decoded JSON (times in ns)."""
        params = {"q": q, "epoch": "ns"}
        if db:
            params["db"] = db
        data = urllib.parse.urlencode(params).encode()
        url = "http://127.0.0.1:%d/query" % self.http
        if post:
            req = urllib.request.Request(url, data=data, method="POST")
        else:
            req = urllib.request.Request(url + "?" + data.decode())
        with urllib.request.urlopen(req, timeout=30) as r:
            return json.loads(r.read().decode())

    def series(self, q, db):
        """The series of a query's first statement: a list of (tags, columns, rows)."""
        res = self.query(q, db)["results"][0]
        if "error" in res:
            raise RuntimeError("InfluxDB: %s: %s" % (q, res["error"]))
        return [(s.get("tags", {}), s["columns"], s["values"]) for s in res.get("series", [])]

    def write_url(self, db):
        return "http://127.0.0.1:%d/write?db=%s" % (self.http, db)

    def udp_url(self):
        return "udp://127.0.0.1:%d" % self.udp
