"""The rank program of the end-to-end test: one allreduce across every rank.

Run by the launcher's rendered mpirun line in place of the blueprint's program, as
`allreduce.py SIZE HOST:SLOTS,...`. Each rank contributes rank + 1; the sum must be n(n+1)/2,
the world size SIZE, and each host must run exactly its SLOTS ranks (so ranks started on the
launcher, or piled on one worker, fail the run).
Rank 0 prints one JSON line with what every rank saw (host name, MPI's local rank, the
capability sets and no_new_privs of its process) so the test can check where the ranks ran
and under which restrictions. Any mismatch exits non-zero, which fails mpirun.
"""

import json
import socket
import sys

from mpi4py import MPI


def _status() -> dict:
    fields = {}
    with open("/proc/self/status") as status:
        for line in status:
            key, _, value = line.partition(":")
            if key in ("CapEff", "CapBnd", "NoNewPrivs", "Uid"):
                fields[key] = value.split()[0]
    return fields


def main() -> int:
    expected_size = int(sys.argv[1])
    expected_hosts = {h: int(n) for h, _, n in (item.partition(":") for item in sys.argv[2].split(","))}
    comm = MPI.COMM_WORLD
    total = comm.allreduce(comm.rank + 1, op=MPI.SUM)
    seen = comm.gather({"rank": comm.rank, "host": socket.gethostname(), **_status()}, root=0)
    if comm.rank != 0:
        return 0
    size = comm.size
    hosts = {}
    for rank in seen:
        hosts[rank["host"]] = hosts.get(rank["host"], 0) + 1
    print(json.dumps({"size": size, "sum": total, "ranks": seen}), flush=True)
    if size != expected_size or total != size * (size + 1) // 2 or hosts != expected_hosts:
        print(f"allreduce: world size {size} (expected {expected_size}), sum {total}, "
              f"ranks per host {hosts} (expected {expected_hosts})", file=sys.stderr, flush=True)
        comm.Abort(3)
    return 0


if __name__ == "__main__":
    sys.exit(main())
