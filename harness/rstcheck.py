#!/usr/bin/env python3
# Check reStructuredText files with docutils, failing on any warning.
#
# Plain docutils does not know the Sphinx and kernel extensions the kernel's
# documentation uses (.. kernel-doc::, .. toctree::, :c:func:, :ref:, :doc:,
# ...): they are registered here as no-ops, so that only what docutils can
# check (markup, sections, tables, lists, internal references) is checked.
# Usage: rstcheck.py FILE...   Prints one line per file; exit 1 if any fails.
import io
import sys
from collections import defaultdict

try:
    import docutils.core
    import docutils.utils
    from docutils import nodes
    from docutils.parsers.rst import Directive, directives, roles
except ImportError:
    print("docutils missing (harness/deps.sh installs python3-docutils)")
    sys.exit(2)


class Ignored(Directive):
    """A Sphinx-only directive: accept any argument, option and content."""
    has_content = True
    optional_arguments = 1
    final_argument_whitespace = True
    option_spec = defaultdict(lambda: directives.unchanged)

    def run(self):
        return []


SPHINX_DIRECTIVES = (
    "kernel-doc", "kernel-include", "kernel-feat", "kernel-abi",
    "kernel-figure", "kernel-image", "kernel-render", "toctree", "only",
    "highlight", "code-block", "sourcecode", "literalinclude", "index",
    "seealso", "sectionauthor", "glossary", "c:function", "c:macro",
    "c:struct", "c:union", "c:enum", "c:enumerator", "c:type", "c:member",
    "c:var", "c:namespace", "c:namespace-push", "c:namespace-pop",
)
SPHINX_ROLES = (
    "ref", "doc", "c:func", "c:type", "c:macro", "c:member", "c:data",
    "c:struct", "c:union", "c:enum", "c:enumerator", "c:var", "c:expr",
    "c:texpr", "manpage", "file", "envvar", "option", "kbd", "samp",
    "command", "program", "term", "numref", "abbr", "menuselection",
)


def literal_role(name, rawtext, text, lineno, inliner, options=None,
                 content=None):
    return [nodes.literal(rawtext, text)], []


for d in SPHINX_DIRECTIVES:
    directives.register_directive(d, Ignored)
for r in SPHINX_ROLES:
    roles.register_local_role(r, literal_role)

status = 0
for path in sys.argv[1:]:
    warnings = io.StringIO()
    settings = {
        "report_level": 2,          # report warnings and worse
        "halt_level": 2,            # and stop at the first one
        "warning_stream": warnings,
        "file_insertion_enabled": False,
        "raw_enabled": False,
        "input_encoding": "utf-8",
        "output_encoding": "utf-8",
    }
    try:
        with open(path, encoding="utf-8") as f:
            source = f.read()
        docutils.core.publish_doctree(source, source_path=path,
                                      settings_overrides=settings)
    except docutils.utils.SystemMessage as e:
        # "PATH:LINE: (LEVEL/N) message", on one line
        print(" ".join(str(e).split()))
        status = 1
        continue
    except (OSError, UnicodeDecodeError) as e:
        print(f"{path}: {e}")
        status = 1
        continue
    text = " ".join(warnings.getvalue().split())
    if text:
        print(text)
        status = 1
    else:
        print(f"{path}: ok")
sys.exit(status)
