#!/usr/bin/env python3
"""tests/mutants/run.py: the mutation audit of the test suite, repeatable.

Each mutant of tests/mutants/mutants.txt (one deliberate bug: a text
replaced in one file) goes into a scratch copy of the tree, the tree is
rebuilt and the mutant's tests run (make check TESTS=...); a mutant is
killed when the build or a test fails, and survives when they all pass.
The file is restored before the next mutant. The worktree is never
touched: the scratch copy holds the tracked files and the untracked ones
git does not ignore, as they are in the worktree now (uncommitted edits
included), and is configured and built once (a few minutes), then rebuilt
incrementally for each mutant (a minute or two each on a small machine).
Not run by make check: it takes half an hour or more.

    python3 tests/mutants/run.py                  # every mutant, fresh scratch copy
    python3 tests/mutants/run.py short_row_stride e2m1_ties_up
    python3 tests/mutants/run.py --scratch DIR    # reuse (or make) the copy in DIR
    python3 tests/mutants/run.py --full           # make check whole for every mutant
    python3 tests/mutants/run.py --configure='--enable-werror' -j 8

It prints one line per mutant (killed, survived, or stale: its text is
no longer in the file) and a summary, and writes the same to
DIR/mutants.log with each mutant's make output in DIR/mutants/NAME.log.
The logs of the tests that killed a mutant follow its make output there.
Exit status: 0 when every mutant run was killed, 1 when one survived, 2
when one was stale (mend its text in mutants.txt) and none survived.
docs/testing.md says what the audit is for and what it last found.
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))


def parse(path):
    """The mutants of path: a list of dicts (name, file, edits, tests, why)."""
    mutants, cur = [], None
    with open(path) as f:
        for number, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            if line.startswith("[") and line.endswith("]"):
                cur = {"name": line[1:-1], "edits": [], "tests": "", "why": "", "file": ""}
                mutants.append(cur)
                continue
            key, sep, value = line.partition(" = ")
            if cur is None or not sep:
                sys.exit(f"{path}:{number}: expected [name] or 'key = value'")
            if key == "old":
                cur["edits"].append([value, None])
            elif key == "new":
                if not cur["edits"] or cur["edits"][-1][1] is not None:
                    sys.exit(f"{path}:{number}: 'new' without its 'old'")
                cur["edits"][-1][1] = value
            elif key in ("file", "tests", "why"):
                cur[key] = value
            else:
                sys.exit(f"{path}:{number}: unknown key '{key}'")
    for m in mutants:
        if not m["file"] or not m["tests"] or not m["edits"] or any(n is None for _, n in m["edits"]):
            sys.exit(f"{path}: mutant [{m['name']}] needs file, tests and old/new pairs")
    return mutants


def run(cmd, cwd, log):
    """Runs cmd (a shell line) in cwd, appending its output to log; its exit status."""
    with open(log, "a") as out:
        out.write(f"$ {cmd}\n")
        out.flush()
        return subprocess.call(cmd, shell=True, cwd=cwd, stdout=out, stderr=subprocess.STDOUT)


def make_scratch(scratch, configure, jobs, log):
    """Copies the tree into scratch (once) and configures and builds it."""
    if not os.path.exists(os.path.join(scratch, "configure.ac")):
        files = subprocess.check_output(
            ["git", "ls-files", "-co", "--exclude-standard", "-z"], cwd=TOP).split(b"\0")
        for name in files:
            if not name:
                continue
            src = os.path.join(TOP, name.decode())
            if not os.path.isfile(src):  # deleted in the worktree, still tracked
                continue
            dst = os.path.join(scratch, name.decode())
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copy2(src, dst)
    if not os.path.exists(os.path.join(scratch, "config.status")):
        if run(f"autoreconf -fi && ./configure {configure}", scratch, log) != 0:
            sys.exit(f"configuring the scratch copy failed: {log}")
    if run(f"make -j{jobs} && make -j{jobs} check TESTS=", scratch, log) != 0:
        sys.exit(f"the unmutated scratch copy does not build: {log}")


def keep_failed_logs(scratch, since, log):
    """Appends to log the logs of the tests that failed in the run begun at since."""
    with open(log, "a") as out:
        for folder, _, names in os.walk(os.path.join(scratch, "tests")):
            for name in sorted(names):
                trs = os.path.join(folder, name)
                if not name.endswith(".trs") or os.path.getmtime(trs) < since:
                    continue
                with open(trs) as f:
                    result = f.read()
                if ":test-result: FAIL" not in result and ":test-result: ERROR" not in result:
                    continue
                test_log = trs[:-4] + ".log"
                if os.path.exists(test_log):
                    out.write(f"--- {os.path.relpath(test_log, scratch)}\n")
                    with open(test_log) as f:
                        out.write(f.read())


def try_mutant(m, scratch, jobs, full, logdir):
    """Applies m in scratch, builds, tests, restores: 'killed', 'survived' or 'stale'."""
    path = os.path.join(scratch, m["file"])
    with open(path) as f:
        original = f.read()
    text = original
    for old, new in m["edits"]:
        if text.count(old) != 1:
            return "stale", f"'{old}' occurs {text.count(old)} times in {m['file']}"
        text = text.replace(old, new)
    log = os.path.join(logdir, m["name"] + ".log")
    open(log, "w").close()
    try:
        with open(path, "w") as f:
            f.write(text)
        if run(f"make -j{jobs} && make -j{jobs} check TESTS=", scratch, log) != 0:
            return "killed", "the build fails"
        tests = "" if full or m["tests"] == "*" else f" TESTS='{m['tests']}'"
        started = time.time()
        if run(f"make -j{jobs} check{tests}", scratch, log) != 0:
            keep_failed_logs(scratch, started, log)
            return "killed", "a test fails"
        return "survived", "every test passes"
    finally:
        with open(path, "w") as f:
            f.write(original)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("names", nargs="*", help="mutants to run (default: all)")
    ap.add_argument("--scratch", help="the scratch copy's folder (default: a new one in $TMPDIR)")
    ap.add_argument("--configure", default="", help="arguments for ./configure")
    ap.add_argument("--full", action="store_true", help="run all of make check for each mutant")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 2)
    args = ap.parse_args()
    mutants = parse(os.path.join(HERE, "mutants.txt"))
    unknown = set(args.names) - {m["name"] for m in mutants}
    if unknown:
        sys.exit(f"no such mutant: {', '.join(sorted(unknown))}")
    if args.names:
        mutants = [m for m in mutants if m["name"] in args.names]
    scratch = args.scratch or tempfile.mkdtemp(prefix="tilepipe-mutants.")
    os.makedirs(scratch, exist_ok=True)
    logdir = os.path.join(scratch, "mutants")
    os.makedirs(logdir, exist_ok=True)
    print(f"scratch copy: {scratch}", flush=True)
    make_scratch(scratch, args.configure, args.jobs, os.path.join(logdir, "build.log"))
    counts = {"killed": 0, "survived": 0, "stale": 0}
    with open(os.path.join(scratch, "mutants.log"), "w") as summary:
        for m in mutants:
            verdict, how = try_mutant(m, scratch, args.jobs, args.full, logdir)
            counts[verdict] += 1
            line = f"{verdict:9} {m['name']:28} {how}; {m['why']}"
            print(line, flush=True)
            summary.write(line + "\n")
        total = f"{counts['killed']} killed, {counts['survived']} survived, {counts['stale']} stale"
        print(total)
        summary.write(total + "\n")
    # Leave the copy built as it stands, for the next --scratch run.
    run(f"make -j{args.jobs}", scratch, os.path.join(logdir, "build.log"))
    return 1 if counts["survived"] else 2 if counts["stale"] else 0


if __name__ == "__main__":
    sys.exit(main())
