"""Authoring aid: print random sections of a docs folder to write questions from."""
import random, re, sys
from pathlib import Path
root = Path(sys.argv[1]); n = int(sys.argv[2]); seed = int(sys.argv[3]); excl = sys.argv[4:] 
ATX = re.compile(r"^(#{1,6})\s+(.*)")
ADORN = re.compile(r"^([=\-~^\"'`#*+])\1{2,}\s*$")
secs = []
for p in sorted(root.rglob("*")):
    if p.suffix not in (".md", ".rst") or any(e in str(p) for e in excl): continue
    lines = p.read_text(errors="replace").splitlines()
    heads = []
    fence = False
    for i, l in enumerate(lines):
        if p.suffix == ".md":
            if l.lstrip().startswith(("```", "~~~")): fence = not fence
            if not fence and ATX.match(l): heads.append((i, ATX.match(l).group(2)))
        else:
            if i + 1 < len(lines) and l.strip() and not ADORN.match(l) and ADORN.match(lines[i+1]) and not l.startswith(" ") and len(lines[i+1].rstrip()) >= len(l.rstrip()):
                heads.append((i, l.strip()))
    heads.append((len(lines), None))
    for (a, t), (b, _) in zip(heads, heads[1:]):
        body = lines[a:b]
        if len(" ".join(body).split()) >= 40:
            secs.append((p, a, t, body))
random.Random(seed).shuffle(secs)
for p, a, t, body in secs[:n]:
    print(f"===== {p.relative_to(root)}:{a+1} [{t}]")
    shown = [l for l in body[:40]]
    print("\n".join(f"{a+1+i}: {l[:160]}" for i, l in enumerate(shown) if l.strip()))
