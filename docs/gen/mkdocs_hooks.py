"""MkDocs hooks of the documentation site (mkdocs.yml ``hooks:``).

Pages written by a program (``bufferlab study run`` writes docs/studies/NAME.md) link to files of
the repository outside docs/, such as ``../../studies/NAME/README.md``: right on GitHub, but not
part of the site, so ``mkdocs build --strict`` refuses them. The pages themselves are not edited
by hand; instead, on the site, such a link becomes the repository path written as code, which is
what the hand-written pages do. Only the generated pages are rewritten (GENERATED_PREFIXES): in
any other page a link out of docs/ stays an error of the strict build, to be fixed in the page.
A link whose target does not exist in the repository is left alone, so that it is still reported.
"""

from __future__ import annotations

import posixpath
import re
from pathlib import Path

# Source paths (relative to docs/) of the pages a program writes.
GENERATED_PREFIXES = ("studies/",)

# An inline Markdown link that is not an image: [text](target) with no title.
_LINK = re.compile(r"(?<!!)\[(?P<text>[^\]\n]+)\]\((?P<target>[^)\s]+)\)")


def repository_path(page_uri: str, target: str, docs_dir: Path) -> str | None:
    """The repository path a relative link of the page at ``page_uri`` (relative to docs/) points
    at, if it leaves docs/ and the file exists; otherwise None."""
    if re.match(r"^[a-z][a-z0-9+.-]*:|^/|^#", target):
        return None  # a URL, an absolute path or an anchor of the page
    path = target.split("#", 1)[0]
    inside = posixpath.normpath(posixpath.join(posixpath.dirname(page_uri), path))
    if not inside.startswith("../"):
        return None
    repo = docs_dir.parent
    rel = posixpath.normpath(posixpath.join(docs_dir.name, inside))
    if rel.startswith("../") or not (repo / rel).exists():
        return None
    return rel


def rewrite_links_out_of_docs(markdown: str, page_uri: str, docs_dir: Path) -> str:
    """Each link out of docs/ to an existing repository file becomes its path as code."""

    def sub(m: re.Match[str]) -> str:
        rel = repository_path(page_uri, m["target"], docs_dir)
        if rel is None:
            return m[0]
        text = m["text"].strip("`")
        return f"`{rel}`" if text == rel else f"{m['text']} (`{rel}`)"

    return _LINK.sub(sub, markdown)


def on_page_markdown(markdown, page, config, files):
    uri = page.file.src_uri
    if not uri.startswith(GENERATED_PREFIXES):
        return markdown
    return rewrite_links_out_of_docs(markdown, uri, Path(config["docs_dir"]))
