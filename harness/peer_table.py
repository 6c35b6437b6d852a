#!/usr/bin/env python3
"""The peer suites side by side: base against ours, case by case.

Usage: peer_table.py [--by-test] BASE_RESULTS OURS_RESULTS

Each argument is a guest's results.tsv (suite, test, status, detail) from
a btf row booted with the peer suites (harness/peer.sh), the base kernel's
and ours.  Prints a Markdown table (suite, case, base, ours) and, last,
the cases that pass on the base and not on ours; exits 1 if there is one.
--by-test: one line per test (TOOL/TEST), its cases' verdicts counted.
"""
import sys


def load(path):
    rows = {}
    with open(path, errors="replace") as f:
        for line in f:
            parts = line.rstrip("\n").split("\t")
            if len(parts) >= 3 and parts[0] == "peer":
                rows[parts[1]] = (parts[2], parts[3] if len(parts) > 3 else "")
    return rows


def verdicts(statuses):
    """'3 pass, 1 fail' for a list of statuses (one status: itself)."""
    if len(statuses) == 1:
        return statuses[0]
    return ", ".join("%d %s" % (statuses.count(s), s)
                     for s in ("pass", "fail", "skip", "not run") if s in statuses)


def main():
    args = sys.argv[1:]
    by_test = args[:1] == ["--by-test"]
    if by_test:
        args = args[1:]
    base, ours = load(args[0]), load(args[1])
    names = sorted(set(base) | set(ours))
    print("| suite | %s | base | ours |" % ("test" if by_test else "case"))
    print("|---|---|---|---|")
    regressions = []
    groups = {}
    for name in names:
        b = base.get(name, ("not run", ""))[0]
        o = ours.get(name, ("not run", ""))[0]
        key = "/".join(name.split("/")[:2]) if by_test else name
        groups.setdefault(key, []).append((b, o))
        if b == "pass" and o != "pass":
            regressions.append(name)
    for key, pairs in groups.items():
        suite, _, case = key.partition("/")
        if by_test and len(pairs) > 1:
            case += " (%d cases)" % len(pairs)
        print("| %s | %s | %s | %s |" % (suite, case, verdicts([b for b, _ in pairs]),
                                         verdicts([o for _, o in pairs])))
    counts = {}
    for label, rows in (("base", base), ("ours", ours)):
        st = [s for s, _ in rows.values()]
        counts[label] = "%d passed, %d failed, %d skipped" % (
            st.count("pass"), st.count("fail"), st.count("skip"))
    print()
    print("base: %s; ours: %s" % (counts["base"], counts["ours"]))
    print("passing on the base and not on ours: %s" %
          (", ".join(regressions) if regressions else "none"))
    return 1 if regressions else 0


if __name__ == "__main__":
    sys.exit(main())
