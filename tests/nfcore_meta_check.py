#!/usr/bin/env python3
"""Check nf-core-style modules as nf-core's module linter would, without
nf-core/tools (which CI cannot install).

  nfcore_meta_check.py MODULE_DIR...

For each module: meta.yml against tests/nfcore_meta_schema.json (our own
schema of nf-core's documented rules, python3-jsonschema), then meta.yml
against main.nf: the name, every input and every output channel (by emit
name, element by element: meta, the path pattern, the eval command), the
versions topic, environment.yml (and environment.gpu.yml) pinning the
version of src/core/version.h, the containers' tag forms, and the nf-test tags
(modules, modules_nfcore, the tool and the module; gpu on a test of a
process_gpu module). Prints "MODULE: what" for each problem and exits 1.
"""
import json
import os
import re
import sys

import jsonschema
import yaml

HERE = os.path.dirname(os.path.abspath(__file__))


def version():
    text = open(os.path.join(HERE, "..", "src", "core", "version.h")).read()
    return re.search(r'#define SG_VERSION "([^"]+)"', text).group(1)


def section(main, name):
    m = re.search(r"^\s*%s:\s*$(.*?)^\s*(?:input|output|when|script|stub):\s*$" % name, main, re.M | re.S)
    return m.group(1) if m else ""


def main_inputs(main):
    """[[names]] of the input channels: tuple val(meta), path(x) or path x."""
    chans = []
    for ln in section(main, "input").strip().splitlines():
        chans.append(re.findall(r"(?:val|path)\s*\(?\s*(\w+)", ln.strip()))
    return chans


def main_outputs(main):
    """{emit: ([element names], topic or None)}, in order."""
    outs = {}
    for ln in section(main, "output").strip().splitlines():
        emit = re.search(r"emit:\s*(\w+)", ln)
        topic = re.search(r"topic:\s*(\w+)", ln)
        elems = [m.group(2) or m.group(3) or m.group(4)
                 for m in re.finditer(r"(val|path|eval)\(\s*(?:\"([^\"]*)\"|'([^']*)'|(\w+))\s*\)", ln)]
        outs[emit.group(1)] = (elems, topic.group(1) if topic else None)
    return outs


def names(channel):
    """The element names of a channel of meta.yml (a list of one-key maps, or one map)."""
    items = channel if isinstance(channel, list) else [channel]
    return [list(e)[0] for e in items]


def check(module):
    problems = []
    say = lambda what: problems.append("%s: %s" % (os.path.basename(module.rstrip("/")), what))
    meta = yaml.safe_load(open(os.path.join(module, "meta.yml")))
    schema = json.load(open(os.path.join(HERE, "nfcore_meta_schema.json")))
    for e in sorted(jsonschema.Draft202012Validator(schema).iter_errors(meta), key=lambda e: list(map(str, e.path))):
        e = jsonschema.exceptions.best_match([e])  # inside a oneOf, the branch's own error
        say("meta.yml %s: %s" % ("/".join(map(str, e.path)) or "top", e.message))
    if problems:
        return problems
    main = open(os.path.join(module, "main.nf")).read()
    tool = os.path.basename(os.path.dirname(os.path.abspath(module)))
    sub = os.path.basename(os.path.abspath(module))
    process = re.search(r"^process\s+(\w+)", main, re.M).group(1)
    if process != ("%s_%s" % (tool, sub)).upper():
        say("the process is %s, not %s_%s" % (process, tool.upper(), sub.upper()))
    if meta["name"] != "%s_%s" % (tool, sub):
        say("meta.yml names %s, not %s_%s" % (meta["name"], tool, sub))
    # inputs, channel by channel
    want_in = main_inputs(main)
    got_in = [names(c) for c in meta.get("input", [])]
    if got_in != want_in:
        say("meta.yml's inputs %s are not main.nf's %s" % (got_in, want_in))
    # outputs by emit name, element by element; topics as main.nf sends them
    outs = main_outputs(main)
    if list(meta["output"]) != list(outs):
        say("meta.yml's outputs %s are not main.nf's emits %s" % (list(meta["output"]), list(outs)))
    topics = {}
    for emit, (elems, topic) in outs.items():
        chans = meta["output"].get(emit, [])
        if len(chans) != 1 or names(chans[0]) != elems:
            say("output %s: meta.yml has %s, main.nf %s" % (emit, [names(c) for c in chans], elems))
        if topic:
            topics.setdefault(topic, []).extend(chans)
    if topics != (meta.get("topics") or {}):
        say("meta.yml's topics are not the channels main.nf sends to them (%s)" % sorted(topics))
    if "versions" not in topics:
        say("no output sends the versions to the versions topic (eval, topic: versions)")
    for emit, (elems, _) in outs.items():
        if "versions" in emit and (len(elems) != 3 or elems[0] != "${task.process}"):
            say("%s is not tuple val(\"${task.process}\"), val(TOOL), eval(COMMAND)" % emit)
    # environments and containers: the version of this source tree
    v = version()
    gpu = "label 'process_gpu'" in main
    envs = ["environment.yml"] + (["environment.gpu.yml"] if gpu else [])
    for env in envs:
        p = os.path.join(module, env)
        if not os.path.exists(p):
            say("no %s" % env)
        elif "bioconda::seqgpu=%s" % v not in yaml.safe_load(open(p))["dependencies"]:
            say("%s does not pin bioconda::seqgpu=%s" % (env, v))
    want_conda = 'conda "${ task.accelerator ? "${moduleDir}/environment.gpu.yml" : "${moduleDir}/environment.yml" }"' \
        if gpu else 'conda "${moduleDir}/environment.yml"'
    if want_conda not in main:
        say("the conda line is not %s" % want_conda)
    container = re.search(r'^\s*container\s+"(.*?)"\s*$', main, re.M | re.S).group(1)
    if "workflow.containerEngine in ['singularity', 'apptainer']" not in container:
        say("the container does not treat singularity and apptainer alike")
    tags = [t for t in re.findall(r"'([^']+)'", container) if t not in ('singularity', 'apptainer')]
    bio = r"seqgpu:%s--h([0-9a-f]{7}|PENDING)_\d+$" % re.escape(v)
    want = [r"^https://depot\.galaxyproject\.org/singularity/" + bio, r"^quay\.io/biocontainers/" + bio]
    if gpu:
        wave = r"community\.wave\.seqera\.io/library/seqgpu_ocl-icd-system:([0-9a-f]{16}|PENDING)$"
        want = [r"^oras://" + wave, want[0], "^" + wave, want[1]]
        if container.count("task.accelerator ?") != 2:  # for docker and for singularity or apptainer
            say("the image is not chosen on task.accelerator for each engine")
    if len(tags) != len(want) or not all(re.match(w, t) for w, t in zip(want, tags)):
        say("container tags %s are not of the forms %s" % (tags, want))
    # nf-test tags
    tests = {f: open(os.path.join(module, "tests", f)).read() for f in sorted(os.listdir(os.path.join(module, "tests")))
             if f.endswith(".nf.test")}
    for f, text in tests.items():
        got = re.findall(r'^\s*tag\s+"([^"]+)"', text, re.M)
        for t in ("modules", "modules_nfcore", tool, "%s/%s" % (tool, sub)):
            if t not in got:
                say("tests/%s has no tag %s" % (f, t))
    if gpu and not any(re.search(r'^\s*tag\s+"gpu"', t, re.M) for t in tests.values()):
        say("a process_gpu module with no test tagged gpu")
    return problems


def main(argv):
    if len(argv) < 2:
        sys.exit(__doc__)
    problems = [p for m in argv[1:] for p in check(m)]
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
