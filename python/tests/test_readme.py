"""The README's "Python" section runs as written (issue 13, "Set-up and documentation").

Its ```python blocks are joined in order and run by this interpreter (Debian's /usr/bin/python3
under `scripts/python.sh test`) in a fresh process, as `python3 -c` would, in an empty directory:
the way a reader pastes them into an interactive session. What they print must be the section's
```text blocks, joined in order (the seeds are fixed, so the output shown is the output). A missing
or empty section fails.
"""
from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys

import pytest

README = pathlib.Path(__file__).resolve().parents[2] / "README.md"
FENCE = re.compile(r"^```python\n(.*?)^```$", re.DOTALL | re.MULTILINE)
OUTPUT = re.compile(r"^```text\n(.*?)^```$", re.DOTALL | re.MULTILINE)


def python_section(text: str) -> str:
    """The text of the README's "## Python" section, up to the next second-level heading."""
    found = re.search(r"^## Python\n(.*?)(?=^## |\Z)", text, re.DOTALL | re.MULTILINE)
    assert found, 'README.md has no "## Python" section'
    return found.group(1)


def code_blocks(section: str) -> list[str]:
    """The ```python fenced blocks of a section, in order; none of them empty."""
    blocks = FENCE.findall(section)
    assert blocks, 'the README\'s "Python" section has no ```python block'
    assert all(block.strip() for block in blocks), "an empty ```python block"
    return blocks


def test_python_section_runs(tmp_path: pathlib.Path) -> None:
    section = python_section(README.read_text(encoding="utf-8"))
    code = "\n".join(code_blocks(section))
    # The section must tell which interpreter to use: `python3` first on PATH may be another one.
    assert "/usr/bin/python3" in section
    env = dict(os.environ, MPLBACKEND="Agg")  # no display here; the blocks save their figures
    # `-c`, not a file: Dask's spawned workers re-run a main script that has a __file__, not this.
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout == "".join(OUTPUT.findall(section)), "the output shown is not what the code prints"
    # Whatever the blocks say they save exists and is not empty.
    saved = re.findall(r"(?:savefig|save)\(\"([^\"]+)\"", code)
    assert saved, "the section saves no figure"
    for name in saved:
        assert (tmp_path / name).stat().st_size > 0, name


@pytest.mark.parametrize("text, message", [
    ("# ldpkit\n\n## Building\n\n```python\nprint(1)\n```\n", "no \"## Python\" section"),
    ("## Python\n\nNo code here.\n\n## Next\n", "has no ```python block"),
    ("## Python\n\n```python\n\n```\n", "an empty ```python block"),
])
def test_missing_or_empty_section_fails(text: str, message: str) -> None:
    with pytest.raises(AssertionError, match=re.escape(message)):
        code_blocks(python_section(text))
