#!/usr/bin/env python3
"""Render an nf-core-style module's script: or stub: block as Nextflow would,
for a test without Nextflow (which CI cannot install).

  nextflow_render.py render MODULE_DIR WORKDIR [--stub] [--meta KEY=VALUE]... [--in NAME=PATH[,PATH]...]...
      stage the inputs of the module's first nf-test case (tests/main.nf.test)
      into WORKDIR as symlinks and write WORKDIR/.command.sh; --meta sets a
      key of the meta map (the test's, or a new one), --in gives the input
      NAME these files instead (a module without tests takes all from --in):
      what a workflow hands the process
  nextflow_render.py outputs MODULE_DIR WORKDIR [--stub] [--meta ...] [--in ...]
      print "emit<TAB>file" for every declared output found in WORKDIR; exit 1
      when a declared output (not optional) is missing
  nextflow_render.py snapshot MODULE_DIR WORKDIR TEST_NAME
      check every value of that test's snapshot (tests/main.nf.test.snap)
      against WORKDIR: "NAME:md5,HASH" is NAME's md5, a bare name is a file
      there, a list of lines is the text of an output (decompressed if it is
      gzip), a map is the test's meta, a whole process.out has every declared
      output (by index and by emit name) with the files the run wrote; print
      what was checked

Only the Groovy the modules use is understood, and anything else is an error
rather than a guess: statements `[def] NAME = task.ext.KEY ?: STRING`,
`def NAME = task.accelerator ? EXPR : STRING` (no accelerator here: the
STRING) and `def NAME = meta.KEY ? STRING : STRING` (the first when the meta
map has KEY), and strings with $name, ${name} and ${a.b} interpolation. The
task has 2 cpus, no accelerator and no task.ext settings.
"""
import fnmatch
import glob
import os
import re
import sys


class RenderError(Exception):
    pass


def read_string(text, i):
    """The Groovy string literal at text[i]: (kind, raw body, index after it)."""
    for q in ('"""', "'''", '"', "'"):
        if text.startswith(q, i):
            j = i + len(q)
            while j < len(text):
                if text[j] == "\\":
                    j += 2
                    continue
                if text.startswith(q, j):
                    return ("g" if q[0] == '"' else "s"), text[i + len(q):j], j + len(q)
                j += 1
            raise RenderError("unterminated string at %r" % text[i:i + 40])
    raise RenderError("expected a string at %r" % text[i:i + 40])


ESCAPES = {"\\": "\\", "$": "$", "n": "\n", "t": "\t", '"': '"', "'": "'"}


def lookup(name, env):
    if name not in env:
        raise RenderError("cannot render ${%s}: unknown here" % name)
    return env[name]


def interpolate(kind, body, env):
    out, i = [], 0
    while i < len(body):
        c = body[i]
        if c == "\\" and i + 1 < len(body):
            if body[i + 1] not in ESCAPES:
                raise RenderError("unknown escape \\%s" % body[i + 1])
            out.append(ESCAPES[body[i + 1]])
            i += 2
        elif c == "$" and kind == "g" and body.startswith("${", i):
            j = body.index("}", i)
            out.append(str(lookup(body[i + 2:j].strip(), env)))
            i = j + 1
        elif c == "$" and kind == "g" and re.match(r"[A-Za-z_]", body[i + 1:i + 2]):
            m = re.match(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*", body[i + 1:])
            out.append(str(lookup(m.group(0), env)))
            i += 1 + m.end()
        else:
            out.append(c)
            i += 1
    return "".join(out)


def strip_indent(s):
    """Groovy's String.stripIndent(), which Nextflow applies to a script."""
    lines = s.split("\n")
    widths = [len(ln) - len(ln.lstrip()) for ln in lines[1:] if ln.strip()]
    cut = min(widths) if widths else 0
    return "\n".join([lines[0]] + [ln[cut:] for ln in lines[1:]])


def blocks(main):
    """The process's name, and its input:, output:, script: and stub: sections."""
    m = re.search(r"^process\s+(\w+)\s*\{", main, re.M)
    if not m:
        raise RenderError("no process in main.nf")
    sections, name, start = {}, None, m.end()
    for s in re.finditer(r"^\s*(input|output|when|script|stub):\s*$", main, re.M):
        if name:
            sections[name] = main[start:s.start()]
        name, start = s.group(1), s.end()
    sections[name] = main[start:main.rindex("}")]
    return m.group(1), sections


def run_block(block, env):
    """Evaluate the statements of a script:/stub: block; return the script text."""
    i = 0
    while True:
        while i < len(block) and block[i].isspace():
            i += 1
        if block.startswith("//", i):
            i = block.index("\n", i)
            continue
        if block.startswith('"""', i):
            kind, body, _ = read_string(block, i)
            return strip_indent(interpolate(kind, body, env))
        m = re.compile(r"(?:def\s+)?(\w+)\s*=\s*task\.ext\.(\w+)\s*\?:\s*").match(block, i)
        if m:
            kind, body, i = read_string(block, m.end())
            env[m.group(1)] = interpolate(kind, body, env)  # task.ext is empty here
            continue
        m = re.compile(r"def\s+(\w+)\s*=\s*meta\.(\w+)\s*\?\s*").match(block, i)
        if m:
            kind, body, j = read_string(block, m.end())
            colon = re.compile(r"\s*:\s*").match(block, j)
            if not colon:
                raise RenderError("cannot render the statement %r" % block[i:block.find("\n", i)])
            kind2, body2, i = read_string(block, colon.end())
            given = env.get("meta." + m.group(2)) not in (None, "", "false")
            env[m.group(1)] = interpolate(kind, body, env) if given else interpolate(kind2, body2, env)
            continue
        m = re.compile(r"def\s+(\w+)\s*=\s*task\.accelerator\s*\?").match(block, i)
        if m:
            # the true branch is Groovy for a GPU task: skipped; the false branch is a string
            line_end = block.index("\n", m.end())
            colon = block.rindex(" : ", m.end(), line_end)
            kind, body, i = read_string(block, colon + 3)
            env[m.group(1)] = interpolate(kind, body, env)
            continue
        raise RenderError("cannot render the statement %r" % block[i:block.find("\n", i)])


def test_inputs(test_file, module_dir):
    """The inputs of the first test case: [(meta or None, [paths])] in order."""
    text = open(test_file).read()
    m = re.search(r'process\s*\{\s*"""(.*?)"""', text, re.S)
    if not m:
        raise RenderError("no process inputs in %s" % test_file)
    dirs = {"moduleDir": module_dir, "moduleTestDir": os.path.dirname(test_file)}
    found = {}
    for im in re.finditer(r"input\[(\d+)\]\s*=\s*(.*?)(?=input\[\d+\]|$)", m.group(1), re.S):
        expr = im.group(2).strip()
        meta = None
        if expr == "[]":  # an optional path input given nothing
            found[int(im.group(1))] = (None, [])
            continue
        if expr.startswith("["):
            mm = re.search(r"\[\s*((?:\w+\s*:\s*'[^']*'\s*,?\s*)+)\]", expr)
            if not mm:
                raise RenderError("input[%s]: no meta map" % im.group(1))
            meta = dict(re.findall(r"(\w+)\s*:\s*'([^']*)'", mm.group(1)))
        paths = [re.sub(r"\$\{(\w+)\}", lambda d: dirs[d.group(1)], f)
                 for f in re.findall(r'file\(\s*"([^"]+)"', expr)]
        found[int(im.group(1))] = (meta, paths)
    return [found[k] for k in sorted(found)]


def declared_inputs(section):
    """[(has_meta, name)] from lines 'tuple val(meta), path(x)' and 'path x'."""
    out = []
    for ln in section.strip().splitlines():
        ln = ln.strip()
        m = re.match(r"tuple\s+val\(meta\)\s*,\s*path\((\w+)\)$", ln) or re.match(r"path\s*\(?\s*(\w+)\s*\)?$", ln)
        if not m:
            raise RenderError("cannot read the input line %r" % ln)
        out.append((ln.startswith("tuple"), m.group(1)))
    return out


def declared_outputs(section):
    """[(emit, pattern kind, pattern body, optional)]."""
    out = []
    for ln in section.strip().splitlines():
        m = re.search(r"path\s*\(?\s*(\"[^\"]*\"|'[^']*')", ln)
        e = re.search(r"emit:\s*(\w+)", ln)
        if not m or not e:
            raise RenderError("cannot read the output line %r" % ln.strip())
        kind, body, _ = read_string(m.group(1), 0)
        out.append((e.group(1), kind, body, "optional: true" in ln))
    return out


def setup(module_dir, workdir, stub, metas=(), ins=()):
    name, sec = blocks(open(os.path.join(module_dir, "main.nf")).read())
    env = {"task.cpus": 2, "task.process": name}
    decl = declared_inputs(sec["input"])
    test_file = os.path.join(module_dir, "tests", "main.nf.test")
    overrides = dict(x.split("=", 1) for x in ins)
    if os.path.exists(test_file):
        given = test_inputs(test_file, module_dir)
    elif all(var in overrides for _, var in decl):
        given = [({} if has_meta else None, []) for has_meta, _ in decl]
    else:
        raise RenderError("no tests/main.nf.test, and not every input given with --in")
    if len(decl) != len(given):
        raise RenderError("%d inputs declared, %d given by the test" % (len(decl), len(given)))
    unknown = set(overrides) - set(var for _, var in decl)
    if unknown:
        raise RenderError("--in %s: no such input" % ", ".join(sorted(unknown)))
    for (has_meta, var), (meta, paths) in zip(decl, given):
        if has_meta != (meta is not None):
            raise RenderError("input %s: the test's meta map does not match the declaration" % var)
        if has_meta:
            meta = dict(meta, **dict(x.split("=", 1) for x in metas))
        if var in overrides:
            paths = [os.path.abspath(p) for p in overrides[var].split(",") if p]
        for k, v in (meta or {}).items():
            env["meta." + k] = v
        staged = []
        for p in paths:
            if not os.path.exists(p):
                raise RenderError("test input %s does not exist" % p)
            dst = os.path.join(workdir, os.path.basename(p))
            if not os.path.lexists(dst):
                os.symlink(os.path.abspath(p), dst)
            staged.append(os.path.basename(p))
        env[var] = " ".join(staged)
    script = run_block(sec["stub" if stub else "script"], env)
    return name, sec, env, script


def check_snapshot(module_dir, workdir, test_name):
    import gzip
    import hashlib
    import json
    snap = json.load(open(os.path.join(module_dir, "tests", "main.nf.test.snap")))
    if test_name not in snap:
        raise RenderError("no snapshot named %r" % test_name)
    if not re.search(r'test\(\s*"%s"\s*\)' % re.escape(test_name), open(os.path.join(module_dir, "tests", "main.nf.test")).read()):
        raise RenderError("the snapshot %r names no test in main.nf.test" % test_name)
    metas = [m for m, _ in test_inputs(os.path.join(module_dir, "tests", "main.nf.test"), module_dir) if m]
    texts = {}
    for f in os.listdir(workdir):
        p = os.path.join(workdir, f)
        if os.path.isfile(p) and not os.path.islink(p) and not f.startswith("."):
            raw = open(p, "rb").read()
            texts[f] = (gzip.decompress(raw) if raw[:2] == b"\x1f\x8b" else raw).decode(errors="replace")
    checked = []

    def names_in(v):
        if isinstance(v, str):
            return [re.sub(r":md5,[0-9a-f]{32}$", "", v)]
        if isinstance(v, list):
            return [n for x in v for n in names_in(x)]
        return []  # a meta map

    def check_channels(out):
        """process.out as nf-test writes it: every declared output in order
        by index ("0", "1", ...) and by emit name, the same value under both,
        [] for an optional output not written, each file of its pattern."""
        _, sec, env, _ = setup(module_dir, workdir, True)
        decl = declared_outputs(sec["output"])
        want = [str(i) for i in range(len(decl))] + [e for e, _, _, _ in decl]
        if sorted(out) != sorted(want):
            raise RenderError("the snapshot's channels %s are not the declared outputs %s" % (sorted(out), sorted(want)))
        for i, (emit, kind, body, optional) in enumerate(decl):
            if out[str(i)] != out[emit]:
                raise RenderError("channel %d and %s differ in the snapshot" % (i, emit))
            pattern = interpolate(kind, body, env)
            files = names_in(out[emit])
            if not files and not optional:
                raise RenderError("the snapshot's %s is empty, and it is not optional" % emit)
            for f in files:
                if not fnmatch.fnmatch(f, pattern):
                    raise RenderError("the snapshot's %s holds %s, not of its pattern %s" % (emit, f, pattern))
            written = sorted(os.path.basename(f) for f in glob.glob(os.path.join(workdir, pattern)))
            if sorted(files) != written:
                raise RenderError("the snapshot's %s holds %s, the run wrote %s" % (emit, sorted(files), written))

    def walk(v):
        if isinstance(v, dict) and all(isinstance(k, str) and k.isdigit() or k.isidentifier() for k in v) and \
                not any(isinstance(x, str) for x in v.values()):
            check_channels(v)
            for x in v.values():  # process.out: channels by index and by emit name
                walk(x)
        elif isinstance(v, dict):
            if v not in metas:
                raise RenderError("meta %r is not the test's" % v)
        elif isinstance(v, list) and v and all(isinstance(x, str) for x in v) and any("\t" in x for x in v):
            text = "\n".join(v) + "\n"
            names = [f for f, t in texts.items() if t == text]
            if not names:
                raise RenderError("no output has the snapshot's %d lines" % len(v))
            checked.append("lines of " + names[0])
        elif isinstance(v, list):
            for x in v:
                walk(x)
        elif isinstance(v, str):
            m = re.match(r"^(.+):md5,([0-9a-f]{32})$", v)
            name = m.group(1) if m else v
            p = os.path.join(workdir, name)
            if not os.path.isfile(p):
                raise RenderError("the snapshot names %s, which the run did not write" % name)
            if m and hashlib.md5(open(p, "rb").read()).hexdigest() != m.group(2):
                raise RenderError("%s: md5 %s, the snapshot says %s" % (name, hashlib.md5(open(p, "rb").read()).hexdigest(), m.group(2)))
            checked.append(("md5 of " if m else "") + name)
        else:
            raise RenderError("unexpected snapshot value %r" % v)

    walk(snap[test_name]["content"])
    for c in checked:
        print(c)


def main(argv):
    if len(argv) == 5 and argv[1] == "snapshot":
        try:
            check_snapshot(argv[2], argv[3], argv[4])
            return 0
        except RenderError as e:
            print("nextflow_render: %s" % e, file=sys.stderr)
            return 1
    if len(argv) < 4 or argv[1] not in ("render", "outputs"):
        sys.exit(__doc__)
    module_dir, workdir, rest = argv[2], argv[3], argv[4:]
    stub, metas, ins = "--stub" in rest, [], []
    rest = [a for a in rest if a != "--stub"]
    while rest:
        if len(rest) < 2 or rest[0] not in ("--meta", "--in") or "=" not in rest[1]:
            sys.exit(__doc__)
        (metas if rest[0] == "--meta" else ins).append(rest[1])
        rest = rest[2:]
    try:
        name, sec, env, script = setup(module_dir, workdir, stub, metas, ins)
        if argv[1] == "render":
            with open(os.path.join(workdir, ".command.sh"), "w") as f:
                f.write("#!/bin/bash -ue\n" + script.lstrip("\n"))
            return 0
        missing = 0
        for emit, kind, body, optional in declared_outputs(sec["output"]):
            pattern = interpolate(kind, body, env)
            files = sorted(glob.glob(os.path.join(workdir, pattern)))
            for f in files:
                print("%s\t%s" % (emit, os.path.basename(f)))
            if not files and not optional:
                print("missing output %s: %s" % (emit, pattern), file=sys.stderr)
                missing += 1
        return 1 if missing else 0
    except RenderError as e:
        print("nextflow_render: %s" % e, file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
