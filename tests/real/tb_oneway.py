#!/usr/bin/env python3
"""One-way time of a TCP message across the testbed's shaped links, after idle (testbed.sh).

  tb_oneway.py srv PORT            in the receiving machine's namespace: answers every message with 1 byte
  tb_oneway.py cli HOST PORT S,... in the sending one: per size, the median over 9 of the time from sending
                                   the message to its answer, 20 ms idle before each (so a token bucket is
                                   full when the message starts, as at an all-reduce's start); prints "S us"

Both ends stop after 60 s (socket timeouts), so a broken testbed cannot hang the test.
"""
import socket
import statistics
import sys
import time


def serve(port):
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.settimeout(60)
    s.bind(("0.0.0.0", port))
    s.listen(1)
    c, _ = s.accept()
    c.settimeout(60)
    c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    buf = bytearray(1 << 20)
    while True:
        h = c.recv(8, socket.MSG_WAITALL)
        if len(h) < 8:
            return
        n, got = int.from_bytes(h, "little"), 0
        while got < n:
            r = c.recv_into(buf, min(len(buf), n - got))
            if r <= 0:
                return
            got += r
        c.sendall(b"k")


def client(host, port, sizes):
    c = None
    for _ in range(50):  # the server may still be starting
        try:
            c = socket.create_connection((host, port), timeout=60)
            break
        except OSError:
            time.sleep(0.1)
    if c is None:
        sys.exit("tb_oneway: cannot connect to %s:%d" % (host, port))
    c.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def one(n):
        data = n.to_bytes(8, "little") + b"x" * n
        t = time.perf_counter()
        c.sendall(data)
        if c.recv(1) != b"k":
            sys.exit("tb_oneway: no answer")
        return time.perf_counter() - t

    for _ in range(3):
        one(1 << 20)
    for n in sizes:
        ts = []
        for _ in range(9):
            time.sleep(0.02)
            ts.append(one(n))
        print(n, "%.1f" % (statistics.median(ts) * 1e6))


if __name__ == "__main__":
    if sys.argv[1] == "srv":
        serve(int(sys.argv[2]))
    else:
        client(sys.argv[2], int(sys.argv[3]), [int(x) for x in sys.argv[4].split(",")])
