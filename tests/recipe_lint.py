#!/usr/bin/env python3
"""Load a conda recipe the way bioconda-utils loads it, and check the lint
rules that apply to a new package, for a test without bioconda-utils and
conda-build (which CI cannot install).

  recipe_lint.py lint RECIPE_DIR [--tarball FILE]
      load meta.yaml and check the rules; print "RULE: what" for each one
      broken and exit 1; with --tarball, the source hash must be that file's
      sha256 and the URL must name it
  recipe_lint.py variants RECIPE_DIR
      the variant set: one line per platform the recipe names (linux-64 and
      extra/additional-platforms), "PLATFORM<TAB>build" or "PLATFORM<TAB>skip"
  recipe_lint.py commands RECIPE_DIR PLATFORM
      the test commands of PLATFORM's build, one a line, selectors applied

The loader is bioconda-utils' Recipe.render(): meta.yaml is rendered as a
Jinja template in which an undefined name is silently empty (conda-build's
own variables, pin_subpackage ...), compiler('c') renders as compiler_c and
stdlib('c') as stdlib_c, and the text is parsed as YAML that refuses a key
given twice. Line selectors (# [linux]) are not applied there, as in
bioconda-utils' linter: two keys that only selectors tell apart are a
duplicate. For variants and commands the selectors of a platform are
applied first, as conda-build does.

The rules, named as bioconda-utils names them: missing_build_number,
build_number_needs_reset (a new package: no build of this version exists,
so the number is 0), missing_hash (and here: a real sha256, 64 hex digits,
not one digit repeated), missing_license, missing_license_file (and the
file in the tarball), missing_home, missing_summary, missing_tests,
should_use_compilers, compilers_must_be_in_build, compiler_needs_stdlib_c,
missing_run_exports, should_not_be_noarch_compiler, uses_vcs_url,
version_starts_with_v, folder_and_package_name_must_match,
extra_identifiers_not_list / _missing_colon.
"""
import hashlib
import os
import re
import sys
import tarfile

import jinja2
import yaml


class SilentUndefined(jinja2.Undefined):
    """An undefined name renders as "", and calling or indexing it gives "" too."""

    def _fail_with_undefined_error(self, *args, **kwargs):
        return ""

    __add__ = __radd__ = __mul__ = __rmul__ = __truediv__ = __rtruediv__ = __floordiv__ = __rfloordiv__ = \
        __mod__ = __rmod__ = __pos__ = __neg__ = __call__ = __getitem__ = __lt__ = __le__ = __gt__ = __ge__ = \
        __int__ = __float__ = __complex__ = __pow__ = __rpow__ = _fail_with_undefined_error


JINJA_VARS = {
    "compiler": lambda x: "compiler_%s" % x,
    "stdlib": lambda x: "stdlib_%s" % x,
    "pin_compatible": lambda x, max_pin=None, min_pin=None, upper_bound=None, lower_bound=None: x,
    "cdt": lambda x: x,
}


class DuplicateKey(Exception):
    pass


class UniqueKeyLoader(yaml.SafeLoader):
    """YAML that refuses a mapping key given twice (PyYAML keeps the last silently)."""

    def construct_mapping(self, node, deep=False):
        seen = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=deep)
            if key in seen:
                raise DuplicateKey("duplicate key '%s' at line %d" % (key, key_node.start_mark.line + 1))
            seen.add(key)
        return super().construct_mapping(node, deep)


SELECTOR = re.compile(r"^(.*?)\s*#\s*\[([^\[\]]+)\]\s*$")


def platform_names(platform):
    """The selector names conda-build defines for a target platform."""
    os_name, arch = platform.split("-")
    names = {"linux": os_name == "linux", "osx": os_name == "osx", "win": os_name == "win",
             "unix": os_name != "win", "x86_64": arch == "64", "aarch64": arch == "aarch64",
             "arm64": arch == "arm64", "linux64": platform == "linux-64", "py3k": True, "py2k": False}
    return names


def apply_selectors(text, platform):
    out = []
    for line in text.split("\n"):
        m = SELECTOR.match(line)
        if m:
            if not eval(m.group(2), {"__builtins__": {}}, platform_names(platform)):
                continue
            line = m.group(1)
        out.append(line)
    return "\n".join(out)


def load(recipe_dir, platform=None):
    """meta.yaml rendered and parsed; selectors applied when platform is given."""
    text = open(os.path.join(recipe_dir, "meta.yaml")).read()
    if platform:
        text = apply_selectors(text, platform)
    env = jinja2.Environment(undefined=SilentUndefined)
    rendered = env.from_string(text).render(JINJA_VARS)
    meta = yaml.load(rendered, Loader=UniqueKeyLoader) or {}
    if not isinstance(meta, dict) or "package" not in meta or not all(k in meta["package"] for k in ("name", "version")):
        raise ValueError("missing package/name or package/version")
    return meta


def get(meta, path, default=None):
    v = meta
    for k in path.split("/"):
        if not isinstance(v, dict) or k not in v or v[k] is None:
            return default
        v = v[k]
    return v


def deps(meta):
    """{package name: [sections]} over build, host and run."""
    found = {}
    for sec in ("build", "host", "run"):
        for spec in get(meta, "requirements/" + sec, []) or []:
            if spec:
                found.setdefault(str(spec).split()[0], []).append(sec)
    return found


def lint(recipe_dir, tarball=None):
    try:
        meta = load(recipe_dir)
    except DuplicateKey as e:
        return ["duplicate_key: %s (bioconda-utils cannot load the recipe)" % e]
    except (jinja2.TemplateError, yaml.YAMLError, ValueError) as e:
        return ["load: %s" % str(e).replace("\n", " ")]
    errs = []
    d = deps(meta)
    number = get(meta, "build/number")
    if number in (None, ""):
        errs.append("missing_build_number: build/number is missing")
    elif str(number) != "0":
        errs.append("build_number_needs_reset: build/number is %s; a new package (or version) starts at 0" % number)
    sources = get(meta, "source", {})
    for i, src in enumerate(sources if isinstance(sources, list) else [sources]):
        if not any(src.get(k) for k in ("md5", "sha1", "sha256")):
            errs.append("missing_hash: source %d has no sha256" % i)
            continue
        for vcs in ("git", "svn", "hg"):
            if vcs + "_url" in src:
                errs.append("uses_vcs_url: source %d downloads from %s" % (i, vcs))
        h = str(src.get("sha256", ""))
        if not re.fullmatch(r"[0-9a-f]{64}", h):
            errs.append("missing_hash: source %d's sha256 '%s' is not 64 hex digits" % (i, h))
        elif len(set(h)) == 1:
            errs.append("missing_hash: source %d's sha256 is one digit repeated, not the hash of a tarball" % i)
        elif tarball:
            real = hashlib.sha256(open(tarball, "rb").read()).hexdigest()
            if h != real:
                errs.append("missing_hash: source %d's sha256 %s is not that of %s (%s)" % (i, h, tarball, real))
            if os.path.basename(str(src.get("url", ""))) != os.path.basename(tarball):
                errs.append("source_url: source %d's url %s does not name %s" % (i, src.get("url"), os.path.basename(tarball)))
    for key in ("license", "home", "summary"):
        if not get(meta, "about/" + key):
            errs.append("missing_%s: about/%s is missing" % (key, key))
    lf = get(meta, "about/license_file")
    if not lf:
        errs.append("missing_license_file: about/license_file is missing")
    elif tarball:
        with tarfile.open(tarball) as t:
            if not any(n.split("/", 1)[-1] == lf for n in t.getnames()):
                errs.append("missing_license_file: %s is not in %s" % (lf, tarball))
    if not get(meta, "test/commands") and not get(meta, "test/imports") and \
            not any(os.path.exists(os.path.join(recipe_dir, f)) for f in ("run_test.sh", "run_test.py", "run_test.pl")):
        errs.append("missing_tests: no test commands")
    for name in ("gcc", "llvm", "libgfortran", "libgcc", "go", "cgo", "toolchain", "rust"):
        if name in d:
            errs.append("should_use_compilers: %s is required directly; use {{ compiler(...) }}" % name)
    compiled = False
    for name, secs in d.items():
        if name.startswith("compiler_"):
            compiled = True
            if any(s != "build" for s in secs):
                errs.append("compilers_must_be_in_build: %s is in %s" % (name, ", ".join(secs)))
    if compiled and "build" not in d.get("stdlib_c", []):
        errs.append("compiler_needs_stdlib_c: a compiler in build without {{ stdlib('c') }}")
    if "run_exports" not in (get(meta, "build", {}) or {}):
        errs.append("missing_run_exports: build/run_exports is missing (pin_subpackage)")
    if compiled and get(meta, "build/noarch"):
        errs.append("should_not_be_noarch_compiler: compiled, but build/noarch is %s" % get(meta, "build/noarch"))
    if str(get(meta, "package/version", "")).startswith("v"):
        errs.append("version_starts_with_v: package/version starts with v")
    if os.path.basename(os.path.abspath(recipe_dir)) != get(meta, "package/name"):
        errs.append("folder_and_package_name_must_match: the folder is %s" % os.path.basename(os.path.abspath(recipe_dir)))
    ids = get(meta, "extra/identifiers")
    if ids is not None and not isinstance(ids, list):
        errs.append("extra_identifiers_not_list: extra/identifiers is not a list")
    elif ids:
        errs += ["extra_identifiers_missing_colon: %s is not TYPE:VALUE" % x for x in ids if ":" not in str(x)]
    return errs


def platforms(recipe_dir):
    return ["linux-64"] + list(get(load(recipe_dir), "extra/additional-platforms", []) or [])


def main(argv):
    if len(argv) >= 3 and argv[1] == "lint" and (len(argv) == 3 or (len(argv) == 5 and argv[3] == "--tarball")):
        errs = lint(argv[2], argv[4] if len(argv) == 5 else None)
        for e in errs:
            print(e)
        return 1 if errs else 0
    if len(argv) == 3 and argv[1] == "variants":
        for p in platforms(argv[2]):
            print("%s\t%s" % (p, "skip" if get(load(argv[2], p), "build/skip") else "build"))
        return 0
    if len(argv) == 4 and argv[1] == "commands":
        for c in get(load(argv[2], argv[3]), "test/commands", []):
            print(c)
        return 0
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
