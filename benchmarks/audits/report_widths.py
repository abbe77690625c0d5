"""Check in a headless browser that the report shows each figure at its natural width.

Usage: ``python benchmarks/audits/report_widths.py REPORT_FOLDER [--width 1400] [--shots DIR]``
(``REPORT_FOLDER`` as written by ``python -m anonlab.report``, holding ``index.html``).

A copy of the page gets a script that, once the page has loaded, writes for every figure
its laid-out width (the ``width`` attribute the report derives from the PNG's size and
dpi), the width the browser draws it at, and its pixel width; headless Chromium runs the
page at a window ``--width`` pixels wide and prints the document (``--dump-dom``). A
figure is *stretched* when it is drawn wider than laid out (fonts larger than in the
other figures), *shrunk* when drawn narrower (the window is narrower than the figure:
CSS ``max-width``, expected on a small screen). ``--shots`` also saves screenshots of
the page at that width, to look at.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the repository root: benchmarks.*

MEASURE = """<script>
window.addEventListener('load', () => {
  const rows = [...document.querySelectorAll('figure img')].map(img => ({
    alt: img.alt, laid_out: img.getAttribute('width'),
    drawn: img.clientWidth, pixels: img.naturalWidth}));
  const out = document.createElement('pre');
  out.id = 'widths'; out.textContent = JSON.stringify(rows);
  document.body.appendChild(out);
});
</script>"""


def chromium() -> str:
    """The headless browser's command."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if path := shutil.which(name):
            return path
    sys.exit("error: no chromium found (apt-get install chromium)")


def measure(page: Path, width: int) -> list[dict]:
    """Every figure's laid-out, drawn and pixel widths on ``page`` at ``width`` pixels."""
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / page.name
        copy.write_text(page.read_text().replace("</body>", MEASURE + "</body>"))
        dom = subprocess.run(
            [chromium(), "--headless", "--no-sandbox", "--disable-gpu",
             f"--window-size={width},900", "--virtual-time-budget=5000", "--dump-dom",
             copy.as_uri()],
            capture_output=True, text=True, check=True, timeout=120,
        ).stdout  # fmt: skip
    found = re.search(r'<pre id="widths">(.*?)</pre>', dom, re.S)
    if not found:
        sys.exit("error: the page did not report its figures")
    return json.loads(found.group(1).replace("&quot;", '"'))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("report", type=Path)
    parser.add_argument("--width", type=int, default=1400)
    parser.add_argument("--shots", type=Path)
    args = parser.parse_args()
    page = args.report / "index.html"
    if not page.is_file():
        sys.exit(f"error: {page} does not exist: write a report first (python -m anonlab.report)")
    rows = measure(page, args.width)
    stretched = shrunk = 0
    print(f"{len(rows)} figures on {page} at a {args.width}-pixel window")
    print(f"{'figure':<34} {'laid out':>9} {'drawn':>6} {'pixels':>7}  verdict")
    for row in rows:
        laid = int(row["laid_out"]) if row["laid_out"] else None
        verdict = "natural"
        if laid is None:
            verdict = "no width attribute"
        elif row["drawn"] > laid + 1:
            verdict, stretched = "STRETCHED", stretched + 1
        elif row["drawn"] < laid - 1:
            verdict, shrunk = "shrunk to the window", shrunk + 1
        print(
            f"{row['alt'][:34]:<34} {laid or '-':>9} {row['drawn']:>6} {row['pixels']:>7}",
            verdict,
        )
    print(f"stretched: {stretched}, shrunk to the window: {shrunk}, natural: "
          f"{len(rows) - stretched - shrunk}")  # fmt: skip
    if args.shots:
        args.shots.mkdir(parents=True, exist_ok=True)
        shot = args.shots / f"report_{args.width}.png"
        subprocess.run(
            [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
             f"--window-size={args.width},2400", f"--screenshot={shot}", page.as_uri()],
            capture_output=True, check=True, timeout=120,
        )  # fmt: skip
        print(f"screenshot: {shot}")
    sys.exit(1 if stretched else 0)


if __name__ == "__main__":
    main()
