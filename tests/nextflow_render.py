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
      print "emit<TAB>file" for every declared output file found in WORKDIR,
      and "emit<TAB>PROCESS,TOOL,VALUE" for a versions tuple, its eval()
      command run in WORKDIR as Nextflow runs it after the script; exit 1
      when a declared output (not optional) is missing, 2 when an eval fails

Only the Groovy the modules use is understood, and anything else is an error
rather than a guess: statements `[def] NAME = task.ext.KEY ?: STRING`,
`def NAME = task.accelerator ? EXPR : STRING` (no accelerator here: the
STRING), `def NAME = meta.KEY ? STRING : STRING` (the first when the meta
map has KEY) and `def NAME = INPUT ? STRING : STRING` (INPUT a val input,
true unless empty or false), and strings with $name, ${name} and ${a.b} interpolation. The
task has 2 cpus, no accelerator and no task.ext settings. An nf-test input
that a workflow step makes (another process's output) must be given with
--in. Nothing here writes nf-test snapshots: nf-test does, with Nextflow.
"""
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
        m = re.compile(r"def\s+(\w+)\s*=\s*(meta\.\w+|\w+)\s*\?\s*(?=[\"'])").match(block, i)
        if m:
            kind, body, j = read_string(block, m.end())
            colon = re.compile(r"\s*:\s*").match(block, j)
            if not colon:
                raise RenderError("cannot render the statement %r" % block[i:block.find("\n", i)])
            kind2, body2, i = read_string(block, colon.end())
            given = env.get(m.group(2)) not in (None, "", "false")
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
    m = re.search(r'when\s*\{\s*process\s*\{\s*"""(.*?)"""', text, re.S)
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
        if "file(" not in expr:  # another process's output: --in gives it
            found[int(im.group(1))] = ("workflow", [])
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
        t = re.match(r"tuple\s+val\(meta\)\s*,\s*path\((\w+)\)\s*,\s*path\((\w+)\)$", ln)
        v = re.match(r"val\s*\(?\s*(\w+)\s*\)?$", ln)
        if t:  # two files with one meta: the second is given with --in
            out.append((True, t.group(1)))
            out.append(("second", t.group(2)))
        elif v:
            out.append(("val", v.group(1)))
        elif m:
            out.append((ln.startswith("tuple"), m.group(1)))
        else:
            raise RenderError("cannot read the input line %r" % ln)
    return out


def declared_outputs(section):
    """[(emit, pattern kind, pattern body, optional)]; kind "eval" for a
    versions tuple val("${task.process}"), val('TOOL'), eval("COMMAND"), whose
    body is (TOOL, COMMAND)."""
    out = []
    for ln in section.strip().splitlines():
        e = re.search(r"emit:\s*(\w+)", ln)
        v = re.match(r'\s*tuple\s+val\("\$\{task\.process\}"\)\s*,\s*val\(\'(\w+)\'\)\s*,\s*eval\((".*?"|\'.*?\')\)\s*,', ln)
        if e and v:
            out.append((e.group(1), "eval", (v.group(1), read_string(v.group(2), 0)[1]), False))
            continue
        m = re.search(r"path\s*\(?\s*(\"[^\"]*\"|'[^']*')", ln)
        if not m or not e:
            raise RenderError("cannot read the output line %r" % ln.strip())
        kind, body, _ = read_string(m.group(1), 0)
        out.append((e.group(1), kind, body, "optional: true" in ln))
    return out


def run_eval(workdir, command):
    """An eval() output: the command's standard output, run in the task's folder."""
    import subprocess
    r = subprocess.run(["bash", "-c", command], cwd=workdir, capture_output=True, text=True)
    if r.returncode or not r.stdout.strip():
        raise RenderError("eval(%r) failed: exit %d %s" % (command, r.returncode, r.stderr.strip()))
    return r.stdout.strip()


def setup(module_dir, workdir, stub, metas=(), ins=()):
    name, sec = blocks(open(os.path.join(module_dir, "main.nf")).read())
    env = {"task.cpus": 2, "task.process": name}
    decl = declared_inputs(sec["input"])
    test_file = os.path.join(module_dir, "tests", "main.nf.test")
    overrides = dict(x.split("=", 1) for x in ins)
    if os.path.exists(test_file):
        given = test_inputs(test_file, module_dir)
    elif all(var in overrides for _, var in decl):
        given = [({} if has_meta is True else None, []) for has_meta, _ in decl]
    else:
        raise RenderError("no tests/main.nf.test, and not every input given with --in")
    if len(decl) != len(given):
        raise RenderError("%d inputs declared, %d given by the test" % (len(decl), len(given)))
    unknown = set(overrides) - set(var for _, var in decl)
    if unknown:
        raise RenderError("--in %s: no such input" % ", ".join(sorted(unknown)))
    for (has_meta, var), (meta, paths) in zip(decl, given):
        if has_meta == "val":
            env[var] = overrides.get(var, "")
            continue
        if has_meta == "second":
            has_meta, meta = False, None
        if meta == "workflow":
            if var not in overrides:
                raise RenderError("input %s is made by a workflow step in the test: give it with --in" % var)
            meta = {} if has_meta else None
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


def main(argv):
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
            if kind == "eval":
                print("%s\t%s,%s,%s" % (emit, name, body[0], run_eval(workdir, body[1])))
                continue
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
