"""The one rule for text in data/ and in parameters: no control or invisible characters.

Kept apart from :mod:`analysis.data.tables` (which needs pandas and pandera) so that the notebook runner
and the command line can apply it without importing either.
"""

from __future__ import annotations

import re

# Characters no text in data/ may hold: C0 controls (tab and newline included: every field is
# one line), DEL, C1 controls, zero-width and direction-changing characters, the byte-order mark.
FORBIDDEN = re.compile("[\x00-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")


def forbidden_char(text: str) -> str:
    """'' if `text` is clean, else a description of its first forbidden character."""
    m = FORBIDDEN.search(text)
    if not m:
        return ""
    return (f"control or invisible character U+{ord(m.group()):04X} at character {m.start() + 1}: "
            "remove it (text fields are one line of visible characters)")


# A title becomes a heading or a link text, and Sphinx's search page shows indexed headings through
# innerHTML: angle brackets are refused in titles (issue 38), whatever later escaping does.
ANGLE = re.compile(r"[<>]")
ANGLE_REASON = "'<' or '>' in a title (titles become headings and search results; write 'under', 'over')"
