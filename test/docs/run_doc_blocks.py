#!/usr/bin/python3
# SPDX-License-Identifier: Apache-2.0
"""Runs the blocks of README.md and docs/*.md that are marked runnable, so that
no command shown in the documentation goes stale.

An HTML comment on the line directly before a fenced block marks it:

    <!-- test -->              a sh / bash / console block runs with bash -euo pipefail,
                               a python block with /usr/bin/python3
    <!-- test: file PATH -->   any block: its text is written to PATH for later blocks

The blocks of one document run in order in one fresh folder (later blocks use what earlier
ones wrote; documents never share), which links build (the build under test), examples,
runtime, test, bench and python to the repository's, so that commands read as from the
repository root. Blocks write into out/, which they make themselves. PATH starts with the
build's bin folder, PYTHONPATH is its python folder, and MXC_REPO / MXC_BUILD name the
repository and the build; Open MPI is set up to run as the test suite runs it (as root,
in containers, two ranks on two cores). One line per block, PASS or FAIL with the block's output; exit
status 1 when a block fails.

--lint checks instead that every relative link and image of the documents resolves (files,
and #anchors to headings), that README.md has at most --max-readme-lines lines, and that
no document reads like a work diary ("session 12", "this session").
"""
import argparse
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
LINKED = ("examples", "runtime", "test", "bench", "python")
SHELLS = ("sh", "bash", "shell", "console")
MARKER = re.compile(r"^\s*<!--\s*test(?::\s*(?P<args>.*?))?\s*-->\s*$")
FENCE = re.compile(r"^(?P<indent>\s*)(?P<fence>`{3,}|~{3,})(?P<info>[^`]*)$")
DIARY = re.compile(r"session [0-9]+|this session", re.IGNORECASE)


class Block:
    def __init__(self, path, line, lang, text, action, target=None):
        self.path, self.line, self.lang, self.text = path, line, lang, text
        self.action, self.target = action, target

    def where(self, repo):
        return "%s:%d" % (os.path.relpath(self.path, repo), self.line)


def fenced_blocks(lines):
    """(first line index, info string, body lines) of every fenced block."""
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, indent = m.group("fence"), len(m.group("indent"))
        start, body = i, []
        i += 1
        while i < len(lines):
            closing = lines[i].strip()
            if closing.startswith(fence[0] * len(fence)) and not closing.strip(fence[0]):
                break
            body.append(lines[i][indent:] if lines[i][:indent].strip() == "" else lines[i])
            i += 1
        yield start, m.group("info").strip(), body
        i += 1


def parse(path, repo):
    """The marked blocks of one document, and the errors in its markers."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().splitlines()
    blocks, errors, fences = [], [], {}
    for start, info, body in fenced_blocks(lines):
        fences[start] = (info, body)
    for i, line in enumerate(lines):
        m = MARKER.match(line)
        if not m:
            continue
        where = "%s:%d" % (os.path.relpath(path, repo), i + 1)
        if i + 1 not in fences:
            errors.append("%s: a test marker must come directly before a fenced block" % where)
            continue
        info, body = fences[i + 1]
        lang = info.split()[0].lower() if info else ""
        args = (m.group("args") or "").split()
        text = "\n".join(body) + "\n"
        if not args:
            if lang in SHELLS:
                blocks.append(Block(path, i + 2, lang, text, "sh"))
            elif lang == "python":
                blocks.append(Block(path, i + 2, lang, text, "python"))
            else:
                errors.append("%s: only sh, bash, console and python blocks run; mark a %s "
                              "block '<!-- test: file PATH -->'" % (where, lang or "plain"))
        elif args[0] == "file" and len(args) == 2 and not os.path.isabs(args[1]):
            blocks.append(Block(path, i + 2, lang, text, "file", args[1]))
        else:
            errors.append("%s: unknown test marker '%s' (expected '<!-- test -->' or "
                          "'<!-- test: file PATH -->')" % (where, m.group("args")))
    return blocks, errors


def default_documents(repo):
    docs = os.path.join(repo, "docs")
    return [os.path.join(repo, "README.md")] + sorted(
        os.path.join(docs, name) for name in os.listdir(docs) if name.endswith(".md"))


def make_workdir(repo, build):
    work = tempfile.mkdtemp(prefix="mxc-doc-")
    os.symlink(build, os.path.join(work, "build"))
    for name in LINKED:
        os.symlink(os.path.join(repo, name), os.path.join(work, name))
    return work


def environment(repo, build):
    env = dict(os.environ)
    env["PATH"] = os.path.join(build, "bin") + os.pathsep + env.get("PATH", "")
    env["PYTHONPATH"] = os.path.join(build, "python")
    env["MXC_REPO"], env["MXC_BUILD"] = repo, build
    env.pop("MXC_TOOL", None)
    # Open MPI as the test suite runs it (lit.cfg.py's %mpirun), so that the documents'
    # `mpirun -np 2 ...` reads as on a user's machine: as root it must be allowed, in
    # containers vader's cross-memory attach is forbidden, and a 2-core machine has two
    # slots.
    if os.geteuid() == 0:
        env["OMPI_ALLOW_RUN_AS_ROOT"] = env["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] = "1"
    env["OMPI_MCA_btl_vader_single_copy_mechanism"] = "none"
    env["OMPI_MCA_rmaps_base_oversubscribe"] = "1"
    return env


def run_block(block, work, env, timeout):
    """(passed, output) of one block."""
    if block.action == "file":
        target = os.path.join(work, block.target)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        with open(target, "w", encoding="utf-8") as f:
            f.write(block.text)
        return True, ""
    command = (["bash", "-euo", "pipefail", "-c", block.text] if block.action == "sh"
               else ["/usr/bin/python3", "-c", block.text])
    # A session of its own, so that a timeout ends the block's children too (mpirun's
    # ranks would otherwise hold the output pipe open).
    proc = subprocess.Popen(command, cwd=work, env=env, stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
    try:
        raw, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        raw, _ = proc.communicate()
        return False, raw.decode("utf-8", "replace") + "\n(killed after %g s)" % timeout
    out = raw.decode("utf-8", "replace")
    if proc.returncode != 0:
        out += "\n(exit status %d)" % proc.returncode
    return proc.returncode == 0, out


def run_documents(paths, repo, build, timeout, keep, verbose):
    env, failed, total, start = environment(repo, build), 0, 0, time.time()
    for path in paths:
        blocks, errors = parse(path, repo)
        for error in errors:
            print("FAIL " + error)
            failed += 1
        if not blocks:
            continue
        work = make_workdir(repo, build)
        try:
            for block in blocks:
                began = time.time()
                passed, out = run_block(block, work, env, timeout)
                if block.action == "file":
                    print("%s: WROTE %s" % (block.where(repo), block.target))
                    continue
                total += 1
                failed += not passed
                print("%s: %s (%s, %.1f s)" % (block.where(repo), "PASS" if passed else "FAIL",
                                               block.lang, time.time() - began))
                if out.strip() and (verbose or not passed):
                    print("  | " + "\n  | ".join(out.rstrip().splitlines()))
                sys.stdout.flush()
        finally:
            if keep:
                print("kept %s" % work)
            else:
                shutil.rmtree(work, ignore_errors=True)
    print("%d of %d blocks passed in %.1f s" % (total - failed, total, time.time() - start))
    return 1 if failed else 0


def slug(heading):
    """GitHub's anchor for a heading."""
    text = re.sub(r"<[^>]+>", "", heading.strip().strip("#").strip())
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text).replace("`", "").lower()
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


def anchors(path, cache):
    if path not in cache:
        with open(path, encoding="utf-8") as f:
            lines = f.read().splitlines()
        in_code, seen = set(), {}
        for start, _, body in fenced_blocks(lines):
            in_code.update(range(start, start + len(body) + 2))
        names = set()
        for i, line in enumerate(lines):
            if i in in_code or not re.match(r"^#{1,6} ", line):
                continue
            base = slug(line)
            n = seen.get(base, 0)
            seen[base] = n + 1
            names.add(base if n == 0 else "%s-%d" % (base, n))
        cache[path] = names
    return cache[path]


def prose(lines):
    """The document's lines outside fenced blocks, inline code blanked out."""
    in_code = set()
    for start, _, body in fenced_blocks(lines):
        in_code.update(range(start, start + len(body) + 2))
    for i, line in enumerate(lines):
        if i not in in_code:
            yield i, re.sub(r"`[^`]*`", "``", line)


def lint(paths, repo, max_readme_lines):
    problems, cache = [], {}
    link = re.compile(r"\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)|<img[^>]*\bsrc=\"([^\"]+)\"|"
                      r"<a[^>]*\bhref=\"([^\"]+)\"")
    for path in paths:
        where = os.path.relpath(path, repo)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        lines = text.splitlines()
        if os.path.samefile(path, os.path.join(repo, "README.md")) and \
                len(lines) > max_readme_lines:
            problems.append("%s: %d lines, more than %d" % (where, len(lines), max_readme_lines))
        for i, line in enumerate(lines):
            if DIARY.search(line):
                problems.append("%s:%d: reads like a work diary: %s" % (where, i + 1,
                                                                         line.strip()))
        for i, line in prose(lines):
            for m in link.finditer(line):
                target = next(g for g in m.groups() if g)
                if re.match(r"^[a-z][a-z0-9+.-]*:", target):
                    continue  # http:, https:, mailto:
                file_part, _, anchor = target.partition("#")
                resolved = os.path.normpath(os.path.join(os.path.dirname(path), file_part)) \
                    if file_part else path
                if not os.path.exists(resolved):
                    problems.append("%s:%d: link to a missing file: %s" % (where, i + 1, target))
                elif anchor and resolved.endswith(".md") and \
                        anchor not in anchors(resolved, cache):
                    problems.append("%s:%d: link to a missing heading: %s" % (where, i + 1,
                                                                             target))
    for problem in problems:
        print(problem)
    print("%d documents checked, %d problems" % (len(paths), len(problems)))
    return 1 if problems else 0


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter,
                                epilog=__doc__.split("\n\n", 1)[1])
    p.add_argument("documents", nargs="*", help="default: README.md and docs/*.md")
    p.add_argument("--repo", default=DEFAULT_REPO, help="the repository (default: %(default)s)")
    p.add_argument("--build", help="the build to test (default: REPO/build)")
    p.add_argument("--timeout", type=float, default=120, help="seconds per block")
    p.add_argument("--keep", action="store_true", help="keep each document's folder")
    p.add_argument("-v", "--verbose", action="store_true", help="print every block's output")
    p.add_argument("--lint", action="store_true",
                   help="check links, README.md's length and diary text; run nothing")
    p.add_argument("--max-readme-lines", type=int, default=250)
    args = p.parse_args()
    repo = os.path.abspath(args.repo)
    build = os.path.abspath(args.build or os.path.join(repo, "build"))
    paths = [os.path.abspath(d) for d in args.documents] or default_documents(repo)
    if args.lint:
        return lint(paths, repo, args.max_readme_lines)
    if not os.path.isfile(os.path.join(build, "bin", "mxc")):
        print("error: no mxc in %s/bin (--build)" % build, file=sys.stderr)
        return 2
    return run_documents(paths, repo, build, args.timeout, args.keep, args.verbose)


if __name__ == "__main__":
    sys.exit(main())
