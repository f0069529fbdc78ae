"""The documentation's relative links resolve: every link in README.md, docs/*.md and the other
READMEs names a file or directory of the repository, and every #anchor names a heading of its
target (as GitHub makes anchors from headings). External links (http:, https:, mailto:) are not
followed. Also: the README keeps its two commands."""
import pathlib
import re
import urllib.parse

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]
DOCS = sorted([REPO / "README.md", *(REPO / "docs").glob("*.md"), REPO / "kustomize" / "README.md",
               REPO / "manifests" / "README.md", REPO / "tests" / "fakeapi" / "README.md",
               REPO / "tests" / "hostile" / "README.md"])

FENCE = re.compile(r"^(```|~~~).*?^\1[ \t]*$", re.M | re.S)
CODE_SPAN = re.compile(r"(`+)(?:(?!\1).)+?\1", re.S)
LINK = re.compile(r"\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.*?)[ \t#]*$", re.M)


def prose(text):
    """The text without fenced code blocks and code spans, where brackets are not links."""
    return CODE_SPAN.sub("", FENCE.sub("", text))


def slug(heading):
    """GitHub's anchor for a heading: the text without markup, lower case, punctuation dropped
    (letters, digits, '_', '-' and spaces kept), spaces as '-'."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text
    text = text.replace("`", "").replace("*", "")
    text = re.sub(r"[^\w\- ]", "", text.lower())
    return text.replace(" ", "-")


def anchors(path):
    seen = {}
    out = set()
    for m in HEADING.finditer(FENCE.sub("", path.read_text())):
        s = slug(m.group(2))
        n = seen.get(s, 0)
        seen[s] = n + 1
        out.add(s if n == 0 else f"{s}-{n}")
    return out


def links(path):
    for target in LINK.findall(prose(path.read_text())):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):  # http:, https:, mailto:
            continue
        yield target


def rel(path):
    return str(path.relative_to(REPO))


def test_the_docs_exist():
    for path in DOCS:
        assert path.is_file(), f"{rel(path)} is missing"
    assert len([p for p in DOCS if p.parent == REPO / "docs"]) >= 1


@pytest.mark.parametrize("path", DOCS, ids=rel)
def test_relative_links_resolve(path):
    problems = []
    for target in links(path):
        file_part, _, anchor = target.partition("#")
        dest = (path.parent / urllib.parse.unquote(file_part)).resolve() if file_part else path
        if not dest.exists():
            problems.append(f"{target}: no such file")
            continue
        try:
            dest.relative_to(REPO)
        except ValueError:
            problems.append(f"{target}: outside the repository")
            continue
        if anchor:
            if dest.suffix != ".md":
                problems.append(f"{target}: an anchor into a file that is not Markdown")
            elif anchor not in anchors(dest):
                problems.append(f"{target}: no heading with the anchor #{anchor} in {rel(dest)}")
    assert not problems, f"{rel(path)}:\n  " + "\n  ".join(problems)


def test_slug_is_githubs():
    assert slug("Why windowctl and not `flux suspend` / `kubectl patch`") == \
        "why-windowctl-and-not-flux-suspend--kubectl-patch"
    assert slug("1. Publish the image to your registry") == "1-publish-the-image-to-your-registry"
    assert slug("Permissions (WC015) are the caller's") == "permissions-wc015-are-the-callers"
    assert slug("Announcing windows: `--notify`") == "announcing-windows---notify"


def test_readme_keeps_the_two_commands():
    text = (REPO / "README.md").read_text()
    assert "bash scripts/demo.sh" in text and "bash scripts/test.sh" in text
