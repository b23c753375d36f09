#!/usr/bin/env python3
"""Checks the repository's documentation as a newcomer meets it (CTest `docs`).

- README.md starts with the two commands, exactly, and .ci/run runs the second;
- every relative link and image in README.md, docs/*.md and bench/README.md names a file
  that exists, and every #anchor a heading of the file it points into;
- README.md stays a page (at most 250 lines);
- none of these files names an issue number, an "issue" or a "sitting": they state
  current facts, and the history lives in git.

Usage: check_docs.py SOURCE_DIR. Prints one line per problem and exits 1 if there is any.
"""
import functools
import pathlib
import re
import sys

COMMANDS = (
    "bash packaging/bootstrap.sh && make run",
    "bash packaging/bootstrap.sh && make test",
)
MAX_README_LINES = 250
# A hash followed by digits, as an issue or pull request reference; an HTML entity
# (&#39;) or a colour (#1a2b3c) is not one.
ISSUE_NUMBER = re.compile(r"(?<![&\w])#\d+(?![\w])")
DIARY_WORDS = re.compile(r"\b(issues?|sittings?)\b", re.IGNORECASE)
FENCE = re.compile(r"^\s*(```|~~~)")
# [text](target) and ![alt](target); the target ends at the first space or ')'.
INLINE_LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]*)>?(?:\s+\"[^\"]*\")?\s*\)")
IMG_TAG = re.compile(r"<img\s[^>]*src=\"([^\"]+)\"", re.IGNORECASE)
CODE_SPAN = re.compile(r"(`+).*?\1")


def prose_lines(text):
    """Yields (line number, line) outside fenced code blocks."""
    fenced = False
    for number, line in enumerate(text.splitlines(), start=1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            yield number, line


def slug(heading):
    """GitHub's anchor for a heading: its text, lower case, punctuation dropped, spaces as -."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link's text only
    text = text.replace("`", "").strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


@functools.lru_cache(maxsize=None)
def anchors(path):
    """Every heading anchor of a markdown file, duplicates numbered as GitHub numbers them."""
    seen = {}
    result = set()
    for _, line in prose_lines(path.read_text(encoding="utf-8")):
        m = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if not m:
            continue
        base = slug(m.group(1))
        n = seen.get(base, 0)
        seen[base] = n + 1
        result.add(base if n == 0 else f"{base}-{n}")
    return result


def check_links(root, path, problems):
    text = path.read_text(encoding="utf-8")
    for number, line in prose_lines(text):
        bare = CODE_SPAN.sub("", line)
        targets = INLINE_LINK.findall(bare) + IMG_TAG.findall(bare)
        for target in targets:
            if not target or re.match(r"^[a-z][a-z0-9+.-]*:", target, re.IGNORECASE):
                continue  # http:, https:, mailto:: not ours to check offline
            file_part, _, anchor = target.partition("#")
            where = f"{path.relative_to(root)}:{number}"
            dest = (path.parent / file_part).resolve() if file_part else path
            if not dest.exists():
                problems.append(f"{where}: link to {target}: {file_part} does not exist")
                continue
            if root.resolve() not in dest.resolve().parents and dest.resolve() != root.resolve():
                problems.append(f"{where}: link to {target} leaves the repository")
                continue
            if anchor:
                if dest.is_dir() or dest.suffix != ".md":
                    problems.append(f"{where}: link to {target}: an anchor into a non-markdown file")
                elif anchor not in anchors(dest):
                    problems.append(
                        f"{where}: link to {target}: {dest.relative_to(root.resolve())} "
                        f"has no heading with the anchor #{anchor}")


def check_history_words(root, path, problems):
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        where = f"{path.relative_to(root)}:{number}"
        for m in ISSUE_NUMBER.finditer(line):
            problems.append(f"{where}: names an issue number ({m.group(0)}); state the fact, "
                            "the history lives in git")
        for m in DIARY_WORDS.finditer(line):
            problems.append(f"{where}: says \"{m.group(0)}\"; state current facts, the history "
                            "lives in git")


def check_readme(root, problems):
    readme = root / "README.md"
    lines = readme.read_text(encoding="utf-8").splitlines()
    if len(lines) > MAX_README_LINES:
        problems.append(f"README.md: {len(lines)} lines, more than {MAX_README_LINES}: move "
                        "the detail to a topic under docs/")
    # The commands open the page: they must come before its first section.
    first_section = next((i for i, l in enumerate(lines) if l.startswith("## ")), len(lines))
    top = lines[:first_section]
    for command in COMMANDS:
        if not any(l.strip().startswith(command) for l in top):
            problems.append(f"README.md: `{command}` is not among the lines before its first "
                            "section")
    ci = root / ".ci" / "run"
    if not ci.exists():
        problems.append(".ci/run does not exist")
        return
    runs = [l.strip() for l in ci.read_text(encoding="utf-8").splitlines()
            if l.strip() and not l.strip().startswith("#")]
    if COMMANDS[1] not in runs:
        problems.append(f".ci/run does not run `{COMMANDS[1]}` (the README's test command)")


def main():
    if len(sys.argv) != 2:
        print("usage: check_docs.py SOURCE_DIR", file=sys.stderr)
        return 2
    root = pathlib.Path(sys.argv[1]).resolve()
    files = [root / "README.md", *sorted((root / "docs").glob("*.md")), root / "bench" / "README.md"]
    problems = []
    for f in files:
        if not f.exists():
            problems.append(f"{f.relative_to(root)} does not exist")
            continue
        check_links(root, f, problems)
        check_history_words(root, f, problems)
    if (root / "README.md").exists():
        check_readme(root, problems)
    for p in problems:
        print(p)
    print(f"checked {len(files)} files: {len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
