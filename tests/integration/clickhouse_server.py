#!/usr/bin/env python3
"""A clickhouse-server of a test's own: loopback, free ports, its data in the test's folder,
stopped by pid. The Debian package (scripts/setup installs it for the tests) brings
/usr/sbin/clickhouse-server; its own config and service are not used."""
import os
import signal
import socket
import subprocess
import time
import urllib.parse
import urllib.request

BINARY = "/usr/sbin/clickhouse-server"

CONFIG = """<?xml version="1.0"?>
<yandex>
    <logger><level>warning</level><log>{dir}/server.log</log>
        <errorlog>{dir}/error.log</errorlog><console>0</console></logger>
    <http_port>{http}</http_port>
    <tcp_port>{tcp}</tcp_port>
    <interserver_http_port>{inter}</interserver_http_port>
    <listen_host>{host}</listen_host>
    <path>{dir}/data/</path>
    <tmp_path>{dir}/tmp/</tmp_path>
    <users_config>{dir}/users.xml</users_config>
    <default_profile>default</default_profile>
    <default_database>default</default_database>
    <mark_cache_size>268435456</mark_cache_size>
    <max_concurrent_queries>20</max_concurrent_queries>
{extra}
</yandex>
"""

USERS = """<?xml version="1.0"?>
<yandex>
    <profiles><default><max_memory_usage>2000000000</max_memory_usage></default></profiles>
    <users><default><password></password><networks><ip>127.0.0.1</ip></networks>
        <profile>default</profile><quota>default</quota></default></users>
    <quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors>
        <result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time>
        </interval></default></quotas>
</yandex>
"""


def free_port(hosts=("127.0.0.1",)):
    """A TCP port free on every address of hosts."""
    for _ in range(100):
        with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
            s.bind((hosts[0], 0))
            port = s.getsockname()[1]
            try:
                for h in hosts[1:]:
                    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as o:
                        o.bind((h, port))
                return port
            except OSError:
                continue
    raise RuntimeError("no port free on every one of %s" % (hosts,))


class ClickHouse:
    def __init__(self, folder, host="127.0.0.1", http=None, extra=""):
        self.dir = folder
        os.makedirs(os.path.join(folder, "data"), exist_ok=True)
        os.makedirs(os.path.join(folder, "tmp"), exist_ok=True)
        self.host = host
        self.http = http or free_port((host,))
        self.tcp = free_port((host,))
        ports = dict(dir=folder, http=self.http, tcp=self.tcp, inter=free_port((host,)),
                     host=host, extra=extra.replace("{tcp}", str(self.tcp)))
        self.extra = extra
        self.ports = ports
        with open(os.path.join(folder, "config.xml"), "w") as f:
            f.write(CONFIG.format(**ports))
        with open(os.path.join(folder, "users.xml"), "w") as f:
            f.write(USERS)
        self.url = "http://%s:%d" % (host, self.http)
        self.proc = None

    def rewrite_config(self, extra):
        with open(os.path.join(self.dir, "config.xml"), "w") as f:
            f.write(CONFIG.format(**dict(self.ports, extra=extra)))

    def start(self, timeout=90):
        log = open(os.path.join(self.dir, "stdout.log"), "a")
        self.proc = subprocess.Popen([BINARY, "--config-file=" + os.path.join(self.dir,
                                                                              "config.xml")],
                                     stdout=log, stderr=log, stdin=subprocess.DEVNULL,
                                     cwd=self.dir)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("clickhouse-server exited (%s); see %s" %
                                   (self.proc.returncode, self.dir))
            try:
                if self.query("SELECT 1").strip() == "1":
                    return
            except OSError:
                pass
            time.sleep(0.2)
        raise RuntimeError("clickhouse-server did not answer within %d s" % timeout)

    def query(self, q, timeout=60):
        req = urllib.request.Request(self.url + "/?" + urllib.parse.urlencode({"query": q}),
                                     data=b"", method="POST")
        with urllib.request.urlopen(req, timeout=timeout) as r:
            return r.read().decode("utf-8", "replace")

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.proc = None


def single(folder):
    """One server, started."""
    ch = ClickHouse(folder)
    ch.start()
    return ch


def cluster(folder, name, n=2):
    """n servers started on 127.0.0.1, 127.0.0.2, ... (one shard each), all answering HTTP at
    one port, as a cluster's servers do (flyprof push --cluster finds them by the cluster's
    host names and the URL's port), and each knowing the cluster `name` (remote_servers)."""
    hosts = ["127.0.0.%d" % (i + 1) for i in range(n)]
    http = free_port(hosts)
    servers = [ClickHouse(os.path.join(folder, "shard%d" % (i + 1)), h, http)
               for i, h in enumerate(hosts)]
    shards = "".join("<shard><replica><host>%s</host><port>%d</port></replica></shard>" %
                     (s.host, s.tcp) for s in servers)
    extra = "<remote_servers><%s>%s</%s></remote_servers>" % (name, shards, name)
    try:
        for s in servers:
            s.rewrite_config(extra)
            s.start()
    except Exception:
        for s in servers:
            s.stop()
        raise
    return servers
