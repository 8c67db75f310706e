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
    <listen_host>127.0.0.1</listen_host>
    <path>{dir}/data/</path>
    <tmp_path>{dir}/tmp/</tmp_path>
    <users_config>{dir}/users.xml</users_config>
    <default_profile>default</default_profile>
    <default_database>default</default_database>
    <mark_cache_size>268435456</mark_cache_size>
    <max_concurrent_queries>20</max_concurrent_queries>
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


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class ClickHouse:
    def __init__(self, folder):
        self.dir = folder
        os.makedirs(os.path.join(folder, "data"), exist_ok=True)
        os.makedirs(os.path.join(folder, "tmp"), exist_ok=True)
        self.http = free_port()
        ports = dict(dir=folder, http=self.http, tcp=free_port(), inter=free_port())
        with open(os.path.join(folder, "config.xml"), "w") as f:
            f.write(CONFIG.format(**ports))
        with open(os.path.join(folder, "users.xml"), "w") as f:
            f.write(USERS)
        self.url = "http://127.0.0.1:%d" % self.http
        self.proc = None
        self.start()

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

    def query(self, q):
        req = urllib.request.Request(self.url + "/?" + urllib.parse.urlencode({"query": q}),
                                     data=b"", method="POST")
        with urllib.request.urlopen(req, timeout=60) as r:
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
