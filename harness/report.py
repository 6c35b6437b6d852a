#!/usr/bin/env python3
"""Turn one guest run into a table and a closing line.

Reads RUN/results.tsv (written by the guest), the KTAP that KUnit printed on
the console, RUN/static.tsv (host-side checks) and the console itself, and
prints one row per test, then 'N passed, N failed, N skipped'.  Exit status
is 1 when anything failed.

The console is scanned for oops, BUG, WARN, lockdep, KASAN/UBSAN reports and
panics; any of them is a failed test of its own, with the excerpt printed.
"""
import os
import re
import sys

BAD = re.compile(
    r"(Oops:|BUG:|WARNING:|-+\[ cut here \]-+|Kernel panic|KASAN:|UBSAN:|"
    r"possible circular locking|possible recursive locking|"
    r"inconsistent lock state|general protection fault|"
    r"INFO: task .* blocked for more than|RCU stall|rcu_.*detected stall|"
    r"kernel BUG at|Call Trace:|unreferenced object)")
ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")


def read(path):
    try:
        with open(path, errors="replace") as f:
            return f.read()
    except FileNotFoundError:
        return None


def strip_time(line):
    return re.sub(r"^\[\s*\d+\.\d+\]\s?", "", ANSI.sub("", line.rstrip("\r\n")))


def kunit_results(console, want):
    """KTAP from the boot: every leaf test of every suite, as suite.test.

    A parameterised case nests its own subtest, one leaf per parameter:
    those are suite.case[param], and the case's own closing line is not a
    row of its own.
    """
    rows = []
    subtests = []                   # suite, then a parameterised case
    for raw in console.splitlines():
        line = strip_time(raw).strip()
        m = re.match(r"# Subtest: (\S+)", line)
        if m:
            subtests.append(m.group(1))
            continue
        m = re.match(r"(not ok|ok) \d+ (.+?)(?:\s+#\s*(\w+)\s*(.*))?$", line)
        if not m or not subtests:
            continue
        status, name, directive, why = m.groups()
        if name == subtests[-1]:    # a subtest's own line closes it
            subtests.pop()
            continue
        if len(subtests) == 1:
            full = "%s.%s" % (subtests[0], name)
        else:
            full = "%s.%s[%s]" % (subtests[0], subtests[-1], name)
        if not want("kunit", full):
            continue
        if directive and directive.upper() == "SKIP":
            rows.append(("kunit", full, "skip", why or "skipped"))
        elif status == "ok":
            rows.append(("kunit", full, "pass", "ok"))
        else:
            rows.append(("kunit", full, "fail", "not ok"))
    return rows


def expected_failures(path, mode):
    """(glob, reason) pairs from harness/expected-failures for this mode."""
    out = []
    text = read(path) or ""
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        parts = line.split(None, 2)
        if len(parts) == 3 and parts[0] in (mode, "any"):
            out.append((parts[1], parts[2]))
    return out


def console_excerpt(console):
    lines = [strip_time(l) for l in console.splitlines()]
    for i, line in enumerate(lines):
        if BAD.search(line):
            lo, hi = max(0, i - 5), min(len(lines), i + 40)
            return line.strip(), "\n".join(lines[lo:hi])
    return None, None


def without_kcsan(console):
    """The console less its KCSAN reports (harness/kcsan.sh judged them)."""
    lines = console.splitlines()
    keep = [True] * len(lines)
    i = 0
    while i < len(lines):
        if "BUG: KCSAN:" in lines[i]:
            lo = i - 1 if i and re.fullmatch(r"=+", strip_time(lines[i - 1]).strip()) else i
            hi = i + 1
            while hi < len(lines) and not re.fullmatch(r"=+", strip_time(lines[hi]).strip()):
                hi += 1
            for j in range(lo, min(hi + 1, len(lines))):
                keep[j] = False
            i = hi
        i += 1
    return "\n".join(l for l, k in zip(lines, keep) if k)


def guest_rows(run, filt, want, prefix, excerpts):
    """Rows of one boot in RUN: KTAP, the guest's results.tsv, the boot.

    FILT is the guest's filter (for what a missing results.tsv means);
    PREFIX goes before every suite name; a console excerpt, if any, is
    appended to EXCERPTS.
    """
    rows = []
    console = read(os.path.join(run, "console.log")) or ""
    if os.path.exists(os.path.join(run, "kcsan-accounted")):
        console = without_kcsan(console)
    if want("kunit", "") or filt.startswith("kunit"):
        k = kunit_results(console, want)
        if not k and filt in ("all", "kunit"):
            rows.append(("kunit", "results", "fail", "no KTAP output on the console"))
        rows += k
    res = read(os.path.join(run, "results.tsv"))
    if res:
        for line in res.splitlines():
            parts = line.split("\t")
            if len(parts) >= 3:
                rows.append((parts[0], parts[1], parts[2], parts[3] if len(parts) > 3 else ""))

    if os.path.exists(os.path.join(run, "console.log")):
        if "KP-GUEST-DONE" not in console:
            why = (read(os.path.join(run, "timeout")) or "guest did not finish").strip()
            rows.append(("boot", "guest finished", "fail", why))
        elif res is None and filt not in ("kunit",) and not filt.startswith("kunit:"):
            rows.append(("boot", "guest finished", "fail", "no results.tsv from the guest"))
        else:
            rows.append(("boot", "guest finished", "pass",
                         "%s s, %s" % ((read(os.path.join(run, "seconds")) or "?").strip(),
                                       (read(os.path.join(run, "accel")) or "?").strip())))
        first, excerpt = console_excerpt(console)
        if first:
            rows.append(("boot", "console clean", "fail", first[:100]))
            excerpts.append((os.path.join(run, "console.log"), excerpt))
        else:
            rows.append(("boot", "console clean", "pass", "no oops/BUG/WARN/lockdep/panic"))
    return [(prefix + r[0],) + tuple(r[1:]) for r in rows]


def main():
    run = sys.argv[1]
    filt = sys.argv[2] if len(sys.argv) > 2 else "all"

    def want(suite, name):
        if filt in ("", "all", suite):
            return True
        if ":" in filt:
            s, pat = filt.split(":", 1)
            import fnmatch
            # A parameterised case's rows answer to the case's name too.
            base = re.sub(r"\[.*\]$", "", name)
            return s == suite and (fnmatch.fnmatch(name, pat) or
                                   fnmatch.fnmatch(base, pat))
        return False

    rows = []
    excerpts = []
    if filt != "debug":
        rows += guest_rows(run, filt, want, "", excerpts)
    for host_side in ("static.tsv", "matrix.tsv", "arm64.tsv", "debug.tsv", "rows.tsv"):
        for line in (read(os.path.join(run, host_side)) or "").splitlines():
            parts = line.split("\t")
            if len(parts) >= 3:
                rows.append((parts[0], parts[1], parts[2], parts[3] if len(parts) > 3 else ""))
    # The debug kernel's boot (harness/debug.sh): its suites get "debug-".
    if os.path.isdir(os.path.join(run, "debug")) and filt in ("all", "debug"):
        rows += guest_rows(os.path.join(run, "debug"), "all", lambda s, n: True,
                           "debug-", excerpts)

    # The booted configuration rows (harness/rows.sh): "NAME-SUITE".
    if filt == "all" or filt.startswith(("config", "peer")):
        for d in sorted(os.listdir(run)):
            path = os.path.join(run, d)
            if d.startswith("row-") and os.path.isdir(path):
                rows += guest_rows(path, "all", lambda s, n: True, d[4:] + "-", excerpts)

    import fnmatch
    xfail = expected_failures(
        os.path.join(os.path.dirname(os.path.abspath(__file__)), "expected-failures"),
        os.environ.get("KP_MODE", "ours"))
    notes = []
    for i, (suite, name, status, detail) in enumerate(rows):
        for glob, reason in xfail:
            if fnmatch.fnmatch("%s:%s" % (suite, name), glob):
                if status == "fail":
                    rows[i] = (suite, name, "skip",
                               "expected failure: %s (%s)" % (reason, detail))
                elif status == "pass":
                    notes.append("%s:%s passes: drop it from harness/expected-failures"
                                 % (suite, name))
                break

    w1 = max([len("%s:%s" % (r[0], r[1])) for r in rows] + [10])
    counts = {"pass": 0, "fail": 0, "skip": 0}
    print("%-*s  %-6s  %s" % (w1, "test", "result", "detail"))
    print("%s  %s  %s" % ("-" * w1, "-" * 6, "-" * 40))
    for suite, name, status, detail in rows:
        status = status if status in counts else "fail"
        counts[status] += 1
        print("%-*s  %-6s  %s" % (w1, "%s:%s" % (suite, name), status.upper(), detail))
    for where, excerpt in excerpts:
        print("\nconsole excerpt (%s):\n%s" % (where, excerpt))
    for n in notes:
        print("note: " + n)
    failed = [r for r in rows if r[2] == "fail"]
    if failed:
        print("\nlogs: %s" % run)
    print("%d passed, %d failed, %d skipped" % (counts["pass"], counts["fail"], counts["skip"]))
    return 1 if counts["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
