#!/usr/bin/env python3
"""Compare the verdicts of results.json pairs: python3 scripts/compare-results.py A1.json B1.json [A2.json B2.json ...]

Row by row, variant by variant: each phase (verdict, step, message, and the variant that measured a shared bind or
conformance) and each check (outcome, level, message), with measured times, ports, pids and the run's temp paths left out. Prints the rows compared and every row that differs.
"""
import json
import re
import sys

NOISE = [
    (re.compile(r"\d+(\.\d+)?\s?(ms|s)\b"), "<t>"),
    (re.compile(r":\d{4,5}\b"), ":<port>"),
    (re.compile(r"\bport \d+"), "port <port>"),
    (re.compile(r"\bpid \d+"), "pid <pid>"),
    (re.compile(r"/tmp/[^\s'\"),]+"), "<tmp>"),
]


def norm(text):
    if text is None:
        return None
    for pattern, repl in NOISE:
        text = pattern.sub(repl, text)
    return text


def rows(results):
    out = {}
    for cell in results["cells"]:
        for phase in cell["phases"]:
            key = (cell["id"], phase["phase"])
            measured_by = (phase.get("details") or {}).get("measuredBy")
            out[key] = (phase["verdict"], phase.get("step"), norm(phase.get("message")), measured_by)
            for check in phase.get("checks") or []:
                out[key + (check["id"],)] = (check["outcome"], check["level"], norm(check.get("message")))
    return out


def main(files):
    if len(files) % 2 or not files:
        sys.exit(__doc__)
    compared = differing = 0
    for a_file, b_file in zip(files[0::2], files[1::2]):
        a, b = rows(json.load(open(a_file))), rows(json.load(open(b_file)))
        for key in sorted(set(a) | set(b)):
            compared += 1
            if a.get(key) != b.get(key):
                differing += 1
                print(f"{a_file} vs {b_file}: {' / '.join(key)}\n  A {a.get(key)}\n  B {b.get(key)}")
    print(f"{compared} rows compared, {differing} differ")


if __name__ == "__main__":
    main(sys.argv[1:])
