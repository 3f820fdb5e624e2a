"""Sphinx configuration of the popart-cpu user guide.

Build (offline, warnings are errors):  python -m sphinx -W -b html docs build/docs
The pages are Markdown (MyST). operators.md is generated from the op registry by
tools/gen_op_docs.py; the code shown in the walkthroughs is included from examples/,
which the tests build and run."""
project = "popart-cpu"
author = "popart-cpu developers"
copyright = "popart-cpu developers"
extensions = ["myst_parser"]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build"]
myst_heading_anchors = 3
html_theme = "alabaster"
html_static_path = []
# Everything is local: no intersphinx, no remote images.
# Pages that include a README section (performance.md) start its "###" subsections right under the
# page's title: MyST's header-level check does not apply to included text.
suppress_warnings = ["myst.header"]
