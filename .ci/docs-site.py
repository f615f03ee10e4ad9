#!/usr/bin/python3
"""Makes the documentation site's root and guides, then checks its links.

Usage: docs-site.py build SITE    renders the README, the changelog, docs/*.md and the
                                  Markdown pages they link to into SITE/guides with
                                  cmark-gfm (GitHub's own renderer, so each page shows what
                                  GitHub shows), and writes SITE/index.html, the landing
                                  page; exits 1 naming each fence, table or image left
                                  unrendered and each link to a heading that is not there
       docs-site.py check SITE    serves SITE over HTTP and follows every internal link
                                  from the landing page: guides, their images, and the DocC
                                  pages with the pages and links they name; exits 1 naming
                                  each dead link, and each line of a DocC code listing wider
                                  than its box

SITE holds the DocC websites, one folder per module (made by .ci/docs).
"""
import html
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import threading
import urllib.error
import urllib.parse
import urllib.request

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
MODULES = {
    "DocumentBookmarks": "The library: bookmarks, the safe save, checking and repair.",
    "DocumentBookmarkStore": "The store of files and folders a user picked.",
    "DocumentWatching": "Following open documents, and putting dropped keys back.",
    "DocumentBookmarksTesting": "The save-safety lint and faults for an app's tests.",
}
ARTICLES = {
    "DocumentBookmarks": [("gettingstarted", "Getting started"), ("savingsafely", "Saving safely"),
                          ("escrowandrepair", "The escrow and repair")],
    "DocumentBookmarkStore": [("usingthestore", "Using the store")],
    "DocumentWatching": [("watchingdocuments", "Watching documents")],
    "DocumentBookmarksTesting": [("testingyourappssave", "Testing your app's save")],
}
# A DocC code listing shows about this many columns before it must be scrolled.
CODE_WIDTH = 80
STYLE = """body { font: 16px/1.5 sans-serif; max-width: 52rem; margin: 2rem auto; padding: 0 1rem; color: #222; }
pre { background: #f4f4f4; padding: 0.75rem; overflow-x: auto; }
code { font-family: monospace; font-size: 0.92em; }
table { border-collapse: collapse; display: block; overflow-x: auto; }
td, th { border: 1px solid #ccc; padding: 0.25rem 0.5rem; vertical-align: top; }
img { max-width: 100%; }
nav { margin-bottom: 1.5rem; }"""


def page_name(source):
    """The guide page a Markdown file of the repository becomes."""
    relative = os.path.relpath(source, ROOT)
    if relative.startswith("docs" + os.sep) and relative.count(os.sep) == 1:
        relative = relative[len("docs" + os.sep):]
    return relative[:-3].replace(os.sep, "-").lower() + ".html"


def render(text):
    """`text` as GitHub renders Markdown: cmark-gfm with GitHub's extensions, raw HTML kept
    but for the tags GitHub filters."""
    rendered = subprocess.run(
        ["cmark-gfm", "--unsafe", "--extension", "table", "--extension", "autolink",
         "--extension", "strikethrough", "--extension", "tagfilter", "--extension", "tasklist"],
        input=text, capture_output=True, text=True, check=True)
    # As on GitHub, a click on an image (a diagram drawn smaller than its text needs) opens
    # it at full size; one already inside a link keeps that link.
    return re.sub(r'(?<!">)(<img src="([^"]+)"[^>]*>)', r'<a href="\2">\1</a>', rendered.stdout)


def slug(heading, taken):
    """The anchor GitHub gives a heading: its text in lower case, without punctuation but
    `-` and `_`, spaces as `-`; `-1`, `-2`, ... after a repeat."""
    text = html.unescape(re.sub(r"<[^>]+>", "", heading)).strip().lower()
    base = re.sub(r"[^\w\- ]", "", text).replace(" ", "-")
    anchor, count = base, 0
    while anchor in taken:
        count += 1
        anchor = f"{base}-{count}"
    taken.add(anchor)
    return anchor


def with_anchors(body):
    """`body` with an `id` on each heading, as GitHub names them; and the ids."""
    taken = set()

    def identify(match):
        level, content = match.group(1), match.group(2)
        return f'<h{level} id="{slug(content, taken)}">{content}</h{level}>'

    return re.sub(r"<h([1-6])>(.*?)</h\1>", identify, body, flags=re.S), taken


def unrendered(body):
    """What in `body` is Markdown left as text (a fence, a table's rule, an image), outside
    code: what a renderer that misreads the page leaves."""
    prose = re.sub(r"<pre\b.*?</pre>|<code\b.*?</code>", "", body, flags=re.S)
    found = []
    for pattern, what in (("```", "a code fence"), (r"\|\s*:?-{3,}:?\s*\|", "a table"), (r"!\[", "an image")):
        if re.search(pattern, prose):
            found.append(what)
    return found


NAV = '<nav><a href="../index.html">docbm documentation</a></nav>'


def python_reference():
    """The Python package's reference, read from its sources (nothing is imported, so no
    library is loaded): for each name the package exports, in `__all__` order, its
    signature and docstring; a class's public methods and properties under it, an
    enumeration's members as a table."""
    import ast
    package = os.path.join(ROOT, "python", "docbm")
    trees, exported = {}, {}
    for module, name in (("docbm", "__init__.py"), ("docbm._names", "_names.py"), ("docbm.testing", "testing.py")):
        with open(os.path.join(package, name), encoding="utf-8") as file:
            trees[module] = ast.parse(file.read())
    definitions = {node.name: node for tree in trees.values() for node in tree.body
                   if isinstance(node, (ast.FunctionDef, ast.ClassDef))}
    for module in ("docbm", "docbm.testing"):
        names = next(ast.literal_eval(node.value) for node in trees[module].body
                     if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "__all__" for t in node.targets))
        exported[module] = names

    def prose(text):
        text = re.sub(r":(?:class|func|data|meth|attr|mod|exc):`~?([^`]+)`", r"`\1`", text or "")
        return text.replace("``", "`")

    def signature(node, drop_self=False):
        arguments = ast.unparse(node.args)
        if drop_self:
            arguments = re.sub(r"^self(, )?", "", arguments)
        returned = f" -> {ast.unparse(node.returns)}" if node.returns else ""
        return f"{node.name}({arguments}){returned}"

    def is_enum(node):
        return any(ast.unparse(base) in ("_Name", "str, Enum", "Enum") for base in node.bases)

    lines = ["# The Python package: reference", "",
             "Every name `docbm` and `docbm.testing` export, with its signature and what its "
             "docstring says (read from the package's sources). The guide is the package's "
             "[README](python-readme.html).", ""]
    for module in ("docbm", "docbm.testing"):
        lines += [f"## `{module}`", ""]
        for name in exported[module]:
            node = definitions.get(name)
            if node is None:
                continue
            if isinstance(node, ast.FunctionDef):
                lines += [f"### `{name}`", "", "```python", f"def {signature(node)}", "```", "",
                          prose(ast.get_docstring(node)), ""]
                continue
            bases = ", ".join(ast.unparse(base) for base in node.bases if not ast.unparse(base).startswith("_"))
            lines += [f"### `{name}`", "", "```python", f"class {name}({bases})" if bases else f"class {name}",
                      "```", "", prose(ast.get_docstring(node)), ""]
            if is_enum(node):
                members = [(target.id, ast.literal_eval(item.value)) for item in node.body
                           if isinstance(item, ast.Assign) for target in item.targets
                           if isinstance(target, ast.Name) and not target.id.startswith("_")]
                lines += ["| member | value |", "|---|---|"]
                lines += [f"| `{member}` | `\"{value}\"` |" for member, value in members] + [""]
                continue
            fields = [f"`{ast.unparse(item.target)}: {ast.unparse(item.annotation)}`" for item in node.body
                      if isinstance(item, ast.AnnAssign) and not ast.unparse(item.target).startswith("_")]
            if fields:
                lines += ["Fields: " + ", ".join(fields) + ".", ""]
            # A private base's public calls (`close`) are the class's own to a reader.
            inherited = [item for base in node.bases if ast.unparse(base).startswith("_Handle")
                         for item in definitions[ast.unparse(base)].body]
            for item in node.body + inherited:
                if not isinstance(item, ast.FunctionDef):
                    continue
                public = not item.name.startswith("_") or item.name in ("__init__", "__enter__", "__iter__")
                if not public:
                    continue
                decorators = [ast.unparse(d) for d in item.decorator_list]
                kind = "property " if "property" in decorators else ""
                shown = signature(item, drop_self=True)
                if item.name == "__init__":
                    shown = name + shown[len("__init__"):].replace(" -> None", "")
                lines += [f"- {kind}`{shown}`"]
                doc = prose(ast.get_docstring(item))
                if doc:
                    lines += ["", "  " + doc.replace("\n", "\n  ")]
                lines += [""]
    return "\n".join(lines)


def c_reference(header):
    """docbm.h as a page: its opening comment, then each section with its prose, and each
    declaration (an enumeration whole, with its values' comments) under its comment."""
    parts = []
    # Enumerations stay whole: their values' comments are part of the code shown.
    enums = {}

    def keep_enum(match):
        enums[f"@enum{len(enums)}@"] = match.group(0)
        return f"@enum{len(enums) - 1}@"

    # The include guard and includes go; the version macros are part of the interface.
    text = re.sub(r"^#(?!define DOCBM_VERSION_).*$", "", header, flags=re.M)
    text = re.sub(r"typedef enum \w+ \{.*?\} \w+;", keep_enum, text, flags=re.S)
    pending = None
    for comment, code in re.findall(r"(/\*.*?\*/)|([^/]+|/(?!\*))", text, flags=re.S):
        if comment:
            inner = [re.sub(r"^\s*\*? ?", "", line) for line in comment.strip("/*").strip("*/").split("\n")]
            prose = "\n".join(inner).strip()
            if re.fullmatch(r"-+", prose):
                continue
            if comment.startswith("/**"):
                pending = prose
            elif "\n" not in prose:
                parts.append(f"<h2 id=\"{slug(prose, set())}\">{html.escape(prose)}</h2>")
            else:
                # A section's notes (lists, indented rules) keep their layout.
                parts.append(f"<pre>{html.escape(prose)}</pre>")
            continue
        code = "\n".join(line for line in code.split("\n") if line.strip() not in ("extern \"C\" {", "}"))
        code = re.sub(r"@enum\d+@", lambda match: enums[match.group(0)], code).strip()
        if not code:
            continue
        names = (re.findall(r"\b(docbm_\w+)\s*\(", code)
                 or re.findall(r"\}\s*(docbm_\w+);|struct (docbm_\w+)", code)
                 or re.findall(r"#define (DOCBM_\w+)", code))
        name = next((n if isinstance(n, str) else next(filter(None, n)) for n in names), None)
        anchor = f' id="{name}"' if name else ""
        if pending:
            parts.append(f"<p>{html.escape(pending)}</p>")
            pending = None
        parts.append(f"<pre{anchor}><code class=\"language-c\">{html.escape(code)}</code></pre>")
    return "<h1>The C library: docbm.h</h1>\n" + "\n".join(parts)


def page(title, body):
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{html.escape(title)}</title><style>{STYLE}</style></head>\n<body>\n{body}\n</body></html>\n")


def build(site):
    guides = os.path.join(site, "guides")
    shutil.rmtree(guides, ignore_errors=True)
    os.makedirs(guides)
    pending = [os.path.join(ROOT, "README.md"), os.path.join(ROOT, "CHANGELOG.md")]
    pending += sorted(os.path.join(ROOT, "docs", name) for name in os.listdir(os.path.join(ROOT, "docs"))
                      if name.endswith(".md"))
    done = set()
    titles = {}
    # Each page's heading anchors, the links to a heading, and what did not render.
    anchors, fragments, problems = {}, [], []
    while pending:
        source = pending.pop(0)
        if source in done:
            continue
        done.add(source)
        with open(source, encoding="utf-8") as file:
            text = file.read()

        def relink(match):
            label, target = match.group(1), match.group(2)
            if re.match(r"^[a-z]+:", target) or target.startswith("#"):
                return match.group(0)
            path, _, anchor = target.partition("#")
            linked = os.path.normpath(os.path.join(os.path.dirname(source), path))
            if not linked.startswith(ROOT + os.sep) or not os.path.exists(linked):
                return match.group(0)  # left as written: the check reports it
            if linked.endswith(".md"):
                pending.append(linked)
                new = page_name(linked)
            else:
                new = "files/" + os.path.relpath(linked, ROOT)
                os.makedirs(os.path.dirname(os.path.join(guides, new)), exist_ok=True)
                shutil.copyfile(linked, os.path.join(guides, new))
            return f"[{label}]({new}{'#' + anchor if anchor else ''})"

        text = re.sub(r"\[([^\]]*)\]\(([^)\s]+)\)", relink, text)
        title = next((line[2:].strip() for line in text.splitlines() if line.startswith("# ")), page_name(source))
        title = "The README" if page_name(source) == "readme.html" else title.replace("`", "")
        titles[page_name(source)] = title
        body, anchors[page_name(source)] = with_anchors(render(text))
        problems.extend(f"{os.path.relpath(source, ROOT)}: {what} left unrendered" for what in unrendered(body))
        for target, fragment in re.findall(r'href="([^":#]*)#([^"]+)"', body):
            fragments.append((page_name(source), target or page_name(source), html.unescape(fragment), source))
        with open(os.path.join(guides, page_name(source)), "w", encoding="utf-8") as file:
            file.write(page(title, NAV + body))

    # The C library's reference, from docbm.h's own comments, and the manual page.
    with open(os.path.join(ROOT, "Sources", "DocbmC", "include", "docbm.h"), encoding="utf-8") as file:
        titles["docbm-h.html"] = "The C library: docbm.h"
        with open(os.path.join(guides, "docbm-h.html"), "w", encoding="utf-8") as out:
            out.write(page(titles["docbm-h.html"], NAV + c_reference(file.read())))
    titles["python-api.html"] = "The Python package: reference"
    body, anchors["python-api.html"] = with_anchors(render(python_reference()))
    problems.extend(f"python/docbm: {what} left unrendered" for what in unrendered(body))
    with open(os.path.join(guides, "python-api.html"), "w", encoding="utf-8") as out:
        out.write(page(titles["python-api.html"], NAV + body))
    manual = subprocess.run(["mandoc", "-Thtml", "-Ofragment", os.path.join(ROOT, "docs", "docbm.1")],
                            capture_output=True, text=True, check=True).stdout
    titles["docbm.1.html"] = "The manual page: docbm(1)"
    with open(os.path.join(guides, "docbm.1.html"), "w", encoding="utf-8") as out:
        out.write(page(titles["docbm.1.html"], NAV + manual))

    items = []
    for module, summary in MODULES.items():
        lower = module.lower()
        articles = "".join(
            f'<li><a href="{module}/documentation/{lower}/{slug}">{html.escape(name)}</a></li>'
            for slug, name in ARTICLES[module])
        items.append(f'<li><a href="{module}/documentation/{lower}/"><code>{module}</code></a>: '
                     f"{html.escape(summary)}<ul>{articles}</ul></li>")
    order = ["readme.html"] + sorted(name for name in titles if name not in ("readme.html", "changelog.html")) \
        + ["changelog.html"]
    guide_items = "".join(f'<li><a href="guides/{name}">{html.escape(titles[name])}</a></li>' for name in order)
    body = ("<h1>docbm documentation</h1>\n<p>Document-scoped bookmarks for Linux, in Swift, with a C library "
            "and a Python package over it.</p>\n"
            f"<h2>API reference and articles</h2>\n<ul>{''.join(items)}</ul>\n"
            f"<h2>Guides</h2>\n<ul>{guide_items}</ul>\n")
    with open(os.path.join(site, "index.html"), "w", encoding="utf-8") as file:
        file.write(page("docbm documentation", body))
    for page_from, target, fragment, source in fragments:
        if target in anchors and fragment not in anchors[target]:
            problems.append(f"{os.path.relpath(source, ROOT)}: a link to {target}#{fragment}, "
                            "a heading that page does not have")
    for problem in problems:
        print(problem)
    return 1 if problems else 0


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):
        pass


def check(site):
    server = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), lambda *args: Quiet(*args, directory=site))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"

    def fetch(path):
        try:
            with urllib.request.urlopen(base + path) as response:
                return response.read()
        except urllib.error.HTTPError:
            return None

    dead, wide, seen = [], [], set()
    pending = [("/", "the site's root")]
    docc_pages = 0
    while pending:
        path, where = pending.pop()
        path = urllib.parse.urlsplit(path).path
        if path in seen:
            continue
        seen.add(path)
        match = re.match(r"^/([A-Za-z]+)/documentation/(.*?)/?$", path)
        if match:
            # A DocC page: its shell, and the JSON the shell renders.
            module, rest = match.groups()
            docc_pages += 1
            if fetch(f"/{module}/documentation/{rest}/index.html") is None:
                dead.append(f"{path} (linked from {where})")
                continue
            data = fetch(f"/{module}/data/documentation/{rest}.json")
            if data is None:
                dead.append(f"{path}: no page data (linked from {where})")
                continue
            page_data = json.loads(data)
            for line in code_lines(page_data):
                if len(line) > CODE_WIDTH:
                    wide.append(f"{path}: {len(line)} columns: {line.strip()}")
            for reference in page_data.get("references", {}).values():
                url = reference.get("url")
                if reference.get("type") == "topic" and url and url.startswith("/documentation/"):
                    pending.append((f"/{module}{url}", path))
                elif reference.get("type") == "link" and url and url.startswith("/"):
                    # A link the page names is followed as written, from the site's root.
                    pending.append((url, path))
                elif reference.get("type") == "image":
                    # An image is loaded from below the module's base path.
                    for variant in reference.get("variants", []):
                        if variant.get("url", "").startswith("/"):
                            pending.append((f"/{module}{variant['url']}", path))
            continue
        body = fetch(path if not path.endswith("/") else path + "index.html")
        if body is None:
            dead.append(f"{path} (linked from {where})")
            continue
        if not path.endswith((".html", "/")):
            continue
        for link in re.findall(r'(?:href|src)="([^"]+)"', body.decode("utf-8")):
            if re.match(r"^[a-z]+:", link) or link.startswith("#"):
                continue
            pending.append((urllib.parse.urljoin(path, link), path))
    server.shutdown()
    for entry in dead:
        print(f"dead link: {entry}")
    for entry in wide:
        print(f"code wider than the listing's box ({CODE_WIDTH} columns): {entry}")
    print(f"{len(seen)} links followed ({docc_pages} DocC pages), {len(dead)} dead, "
          f"{len(wide)} code lines too wide")
    return 1 if dead or wide else 0


def code_lines(value):
    """The lines of every code listing in a DocC page's data."""
    if isinstance(value, dict):
        if value.get("type") == "codeListing":
            yield from value.get("code", [])
        for item in value.values():
            yield from code_lines(item)
    elif isinstance(value, list):
        for item in value:
            yield from code_lines(item)


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] not in ("build", "check"):
        sys.exit(__doc__)
    if sys.argv[1] == "build":
        sys.exit(build(sys.argv[2]))
    else:
        sys.exit(check(sys.argv[2]))
