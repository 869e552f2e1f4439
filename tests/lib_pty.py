# Runs a command in a pseudo-terminal, sends Ctrl-C (the terminal's VINTR, to
# the foreground process group, as a user's keyboard does) once `ready` is in
# the output (or after `--after S` seconds), and prints "exit N" (128 + signal
# for a death by signal reported as -signal by Python) then the output.
# Used by tests/cli/cli_interrupt.sh (named lib_* so the cli_*.sh glob skips it).
#   python3 lib_pty.py [--ready TEXT [--delay S]] [--cols N] [--no-int] --timeout S -- CMD...
# (--cols: the terminal's width; --no-int: never send Ctrl-C, just run to the end)
# (--delay: wait S seconds more after TEXT appeared)
import os, pty, select, sys, time

args = sys.argv[1:]
ready, timeout, delay, seen_at, cols, noint = None, 60.0, 0.0, None, 0, False
while args and args[0] != "--":
    if args[0] == "--ready": ready = args[1].encode(); args = args[2:]
    elif args[0] == "--timeout": timeout = float(args[1]); args = args[2:]
    elif args[0] == "--delay": delay = float(args[1]); args = args[2:]
    elif args[0] == "--cols": cols = int(args[1]); args = args[2:]
    elif args[0] == "--no-int": noint = True; args = args[1:]
    else: sys.exit("lib_pty.py: unknown option " + args[0])
cmd = args[1:]
pid, fd = pty.fork()
if pid == 0:
    if cols:
        import fcntl, struct, termios
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", 24, cols, 0, 0))
    os.execvp(cmd[0], cmd)
out, sent, t0 = b"", False, time.time()
while True:
    r, _, _ = select.select([fd], [], [], 0.05)
    if r:
        try:
            b = os.read(fd, 65536)
        except OSError:
            b = b""
        if not b: break
        out += b
    if seen_at is None and ready is not None and ready in out:
        seen_at = time.time()
    if not sent and not noint and seen_at is not None and time.time() - seen_at >= delay:
        os.write(fd, b"\x03"); sent = True
    if time.time() - t0 > timeout:
        if not sent: os.write(fd, b"\x03"); sent = True
        else: break
_, st = os.waitpid(pid, 0)
print("exit %d" % (os.WEXITSTATUS(st) if os.WIFEXITED(st) else 128 + os.WTERMSIG(st)))
print("sent %d" % sent)
sys.stdout.write(out.decode(errors="replace"))
