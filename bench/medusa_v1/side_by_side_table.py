"""The side-by-side table from side_by_side.sh's raw outputs: medians over rounds and ratios.

    python bench/medusa_v1/side_by_side_table.py OUT_DIR ROUNDS SHOPPERS CHECKOUT_SECONDS
"""

from __future__ import annotations

import re
import statistics
import sys
from pathlib import Path

SERVERS = ("medusa", "ours")
HEAD = re.compile(r"(\d+) shoppers for ([\d.]+) s: (\d+) checkouts, ([\d.]+) checkouts/s, (\d+) failed(.*)")
CPU = re.compile(r"cpu server_s=([\d.]+) postgres_s=([\d.]+) wall_s=([\d.]+) load=([\d.]+)")


def _checkout(path: Path) -> dict | None:
    text = path.read_text() if path.exists() else ""
    head, cpu = HEAD.search(text), CPU.search(text)
    if not head:
        return None
    row = re.search(r"^\| checkout \| (\d+) \| ([\d.na]+) \| ([\d.na]+) \|", text, re.M)
    done = int(head.group(3))
    out = {"rate": float(head.group(4)), "done": done, "failed": int(head.group(5)), "why": head.group(6).strip(),
           "p50": float(row.group(2)) if row else float("nan"), "p99": float(row.group(3)) if row else float("nan")}
    for step, p50 in re.findall(r"^\| ([a-z_]+) \| \d+ \| ([\d.]+|nan) \|", text, re.M):
        out[f"step:{step}"] = float(p50)
    if cpu:
        out["load"] = float(cpu.group(4))
        out["srv_ms"] = float(cpu.group(1)) * 1000 / done if done else float("nan")
        out["pg_ms"] = float(cpu.group(2)) * 1000 / done if done else float("nan")
        out["srv_pct"] = float(cpu.group(1)) * 100 / float(cpu.group(3))  # what the busy machine let it have
    return out


def _bench(path: Path) -> dict[str, dict]:
    rows = {}
    text = path.read_text() if path.exists() else ""
    for line in text.splitlines():
        c = [x.strip() for x in line.strip().strip("|").split("|")]
        if len(c) < 12 or not re.fullmatch(r"[a-z_]+", c[0]) or c[0] == "workload":
            continue
        rps, srv, pg = float(c[2]), float(c[8].rstrip("%")), float(c[9].rstrip("%"))
        rows[c[0]] = {"rps": rps, "p50": float(c[3]), "p99": float(c[4]), "errors": int(c[7]), "srv": srv, "pg": pg,
                      "srv_ms": srv * 10 / rps if rps else float("nan"),
                      "pg_ms": pg * 10 / rps if rps else float("nan")}
    return rows


def _med(values):
    values = [v for v in values if v == v]
    return statistics.median(values) if values else float("nan")


def _fmt(x, digits=1):
    return "–" if x != x else f"{x:,.{digits}f}"


def main(out: Path, rounds: int, shoppers: int, seconds: int) -> None:
    checkouts = {s: [_checkout(out / f"r{r}-{s}-checkout.txt") for r in range(1, rounds + 1)] for s in SERVERS}
    benches = {s: [_bench(out / f"r{r}-{s}-bench.txt") for r in range(1, rounds + 1)] for s in SERVERS}
    print(f"## Side by side, {rounds} rounds alternating (medians; ratio = ours / Medusa, CPU ratio = Medusa / ours)\n")
    print(f"Whole checkouts: `python -m bench.checkout_driver --shoppers {shoppers} --seconds {seconds}`; "
          "CPU = the server's processes and the PostgreSQL backends connected to its database, over the run, "
          "divided by completed checkouts.\n")
    print("| whole checkouts | Medusa | ours | ratio |")
    print("|---|---|---|---|")

    def ck(server, key):
        return [c[key] if c and key in c else float("nan") for c in checkouts[server]]

    def line(label, key, digits=1, ratio="up"):
        m, o = _med(ck("medusa", key)), _med(ck("ours", key))
        per = {s: " / ".join(_fmt(v, digits) for v in ck(s, key)) for s in SERVERS}
        r = (o / m if ratio == "up" else m / o) if m and o and m == m and o == o else float("nan")
        print(f"| {label} | {_fmt(m, digits)} ({per['medusa']}) | {_fmt(o, digits)} ({per['ours']}) | "
              f"{_fmt(r, 1) + '×' if ratio else ''} |")

    line("checkouts/s, median (rounds)", "rate")
    print(f"| failed checkouts per round | {' / '.join(str(c['failed']) if c else '–' for c in checkouts['medusa'])} | "
          f"{' / '.join(str(c['failed']) if c else '–' for c in checkouts['ours'])} | |")
    line("whole checkout p50 ms", "p50", 0, None)
    line("whole checkout p99 ms", "p99", 0, None)
    line("server CPU ms per checkout", "srv_ms", 0, "down")
    line("PostgreSQL CPU ms per checkout", "pg_ms", 0, "down")
    line("server CPU used, % of one core", "srv_pct", 0, None)
    steps = [k for c in checkouts["ours"] + checkouts["medusa"] if c for k in c if k.startswith("step:")]
    for key in dict.fromkeys(k for k in steps if k != "step:checkout"):
        line(f"p50 ms: {key[5:]}", key, 0, None)
    reasons = {s: [c["why"] for c in checkouts[s] if c and c["why"]] for s in SERVERS}
    for s in SERVERS:
        if reasons[s]:
            print(f"\n{s} failures by step: {'; '.join(reasons[s])}")

    print("\nbench.sh workloads (wrk -c32, 10 s after a 3 s warm-up); CPU ms/req = bench.sh's CPU % × 10 / req/s "
          "(PostgreSQL: the backends of that server's database).\n")
    print("| workload | Medusa req/s | ours req/s | ratio | Medusa p99 ms | ours p99 ms | "
          "Medusa CPU ms/req server / pg | "
          "ours CPU ms/req server / pg | errors Medusa / ours |")
    print("|---|---|---|---|---|---|---|---|---|")
    names = []
    for s in SERVERS:
        for rows in benches[s]:
            names += [n for n in rows if n not in names]
    for n in names:
        def col(s, key):
            return [rows[n][key] if n in rows else float("nan") for rows in benches[s]]

        m, o = _med(col("medusa", "rps")), _med(col("ours", "rps"))
        per = {s: " / ".join(_fmt(v, 0) for v in col(s, "rps")) for s in SERVERS}
        ratio = o / m if m and m == m and o == o else float("nan")
        errs = {s: sum(int(v) for v in col(s, "errors") if v == v) for s in SERVERS}
        print(f"| {n} | {_fmt(m, 0)} ({per['medusa']}) | {_fmt(o, 0)} ({per['ours']}) | {_fmt(ratio)}× | "
              f"{_fmt(_med(col('medusa', 'p99')), 0)} | {_fmt(_med(col('ours', 'p99')), 0)} | "
              f"{_fmt(_med(col('medusa', 'srv_ms')), 2)} / {_fmt(_med(col('medusa', 'pg_ms')), 2)} | "
              f"{_fmt(_med(col('ours', 'srv_ms')), 2)} / {_fmt(_med(col('ours', 'pg_ms')), 2)} | "
              f"{errs['medusa']} / {errs['ours']} |")
    loads = [c["load"] for s in SERVERS for c in checkouts[s] if c and "load" in c]
    if loads:
        print(f"\n1-minute load average at the end of each checkout run: {', '.join(f'{x:.1f}' for x in loads)} "
              f"(2 cores; other work on the machine makes absolute figures noisy, ratios less so).")


if __name__ == "__main__":
    main(Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]))
